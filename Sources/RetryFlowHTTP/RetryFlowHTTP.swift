// The URLSession driver arrives with issue 3; until then this module only re-exports the core.
@_exported import RetryFlow
