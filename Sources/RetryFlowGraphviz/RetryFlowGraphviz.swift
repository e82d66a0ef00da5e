// In-process rendering through libgvc arrives with issue 4; until then this module only re-exports the core.
@_exported import RetryFlow
