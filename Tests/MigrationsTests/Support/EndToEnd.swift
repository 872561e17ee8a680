import Testing

/// The suites that start `taskmigrate` processes or use a real server (each test with a fresh
/// database of its own, so they run in parallel).
@Suite("End to end")
enum EndToEnd {}
