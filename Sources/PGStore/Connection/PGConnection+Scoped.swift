extension PGConnection {
    /// Opens a connection for the duration of `body` and closes it afterwards, whether `body`
    /// returns or throws: for short tasks that need a session of their own, outside a pool.
    @discardableResult
    public static func with<T>(_ config: PGConfig, _ body: (PGConnection) async throws -> T) async throws -> T {
        let connection = try await connect(config)
        do {
            let value = try await body(connection)
            await connection.close()
            return value
        } catch {
            await connection.close()
            throw error
        }
    }
}
