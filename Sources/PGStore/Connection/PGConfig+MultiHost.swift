import Foundation

extension PGConfig {
    /// For a multi-host string (`host=a,b port=5432,5433`), one config per host to try in
    /// order, as libpq would; nil for a single host.
    ///
    /// Each host is tried as a connection of its own so that `connectTimeout` applies to each
    /// host, as libpq's `connect_timeout` does (libpq's non-blocking API cannot move on from a
    /// host that does not answer). `prefer-standby` becomes two rounds, as in libpq: standbys
    /// first, then any server.
    func perHostAttempts() -> [PGConfig]? {
        let hosts = Self.list(self["host"])
        let addresses = Self.list(self["hostaddr"])
        let ports = Self.list(self["port"])
        let count = max(hosts.count, addresses.count)
        // Lists of unequal lengths are libpq's to reject, with its own message.
        guard count > 1, hosts.isEmpty || hosts.count == count, addresses.isEmpty || addresses.count == count,
            ports.count <= 1 || ports.count == count
        else { return nil }
        let single: [PGConfig] = (0..<count).map { index in
            var attempt = self
            attempt["host"] = hosts.isEmpty ? nil : hosts[index]
            attempt["hostaddr"] = addresses.isEmpty ? nil : addresses[index]
            attempt["port"] = ports.isEmpty ? nil : ports[ports.count == 1 ? 0 : index]
            return attempt
        }
        guard self["target_session_attrs"] == "prefer-standby" else { return single }
        let standbys = single.map { attempt in
            var standby = attempt
            standby["target_session_attrs"] = "standby"
            return standby
        }
        let anyServer = single.map { attempt in
            var any = attempt
            any["target_session_attrs"] = "any"
            return any
        }
        return standbys + anyServer
    }

    private static func list(_ value: String?) -> [String] {
        guard let value, !value.isEmpty else { return [] }
        return value.split(separator: ",", omittingEmptySubsequences: false).map { $0.trimmingCharacters(in: .whitespaces) }
    }
}
