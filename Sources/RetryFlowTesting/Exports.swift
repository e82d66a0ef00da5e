// `import RetryFlowTesting` gives a test everything: the manual clock, the scripted servers and the
// simulations (RetryFlowTestSupport, which the CLI links without loading swift-testing's libraries at
// startup: issue 24's `cli-startup`), and `expectConsistent`, which records swift-testing issues.
@_exported import RetryFlowTestSupport
