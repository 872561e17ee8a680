import CMicroHTTPD
import Foundation
import Glibc
import PGStore
import TaskCore
import Synchronization

/// What one server accepts: connections, body and header sizes, idle time.
public struct HTTPServerLimits: Sendable {
    /// The largest request body; a larger one is refused with 413 before it is read. A body
    /// without a length (chunked) is read until it passes the cap; up to `overCapAllowance` more
    /// is read and dropped so that a body a little over still gets its 413 when it ends, and past
    /// that the connection is closed with no answer, so a body without end is not read forever.
    public var maxBodyBytes: Int
    /// Connections open at once; more wait in the kernel's queue.
    public var maxConnections: UInt32
    /// Connections open at once from one address (0: no limit of its own).
    public var maxConnectionsPerAddress: UInt32
    /// A connection that sends nothing for this long is closed (slow or stuck clients).
    public var idleTimeoutSeconds: UInt32
    /// Memory per connection for its request line and headers; larger headers are refused with 431.
    public var headerMemoryBytes: Int
    /// The kernel's send buffer for an event stream's socket (`SO_SNDBUF`): what a client that
    /// stops reading can hold up in the kernel, before the stream's own bounded queue.
    public var streamSocketBufferBytes: Int
    /// The largest body whose handler runs on the I/O thread. Decoding a larger one (a JSON
    /// body near `maxBodyBytes` takes tens of milliseconds) would hold up every other
    /// request, so its handler runs on the global executor, as a spooled body's does.
    public var loopBodyBytes: Int
    /// Whether other processes (of the same user) may listen on the same port, the kernel
    /// spreading new connections among them (`SO_REUSEPORT`): several servers on one machine
    /// without a balancer in front.
    public var sharesPort: Bool
    /// Bodies spooled to temporary files at once (imports); one more is refused with 503 and
    /// `Retry-After` before a byte of it is stored. A body is counted from when the upload
    /// admission check (`HTTPServer.start`'s `admitUpload`: the API verifies the token) has
    /// admitted its headers until its answer is sent: an upload the check refuses never holds
    /// one, however slowly it trickles. With no check, every upload is admitted, and this
    /// bounds only the disk they fill at once, not who holds the slots or for how long.
    public var maxSpooledBodies: Int
    /// Of those, the most one holder (the API: one user, whatever token) may have at once, so
    /// that one valid credential cannot take every slot either; one more is 503 with
    /// `Retry-After`. Uploads the check admits for no holder in particular are not counted here.
    public var maxSpooledBodiesPerUser: Int
    /// A socket already bound and listening, handed down by the process that started this one
    /// (`taskserve --workers`): served instead of a socket of the server's own, the kernel
    /// giving each new connection to whichever of the processes sharing it accepts first.
    /// Stopping does not close it for the others. Nil: the server opens its own on host:port.
    public var listeningSocket: Int32?

    /// The defaults: 1 MiB bodies, 1,024 connections, 30 s idle, 32 KiB for headers, handlers
    /// of bodies over 16 KiB off the I/O thread, 8 uploads spooled at once and 2 of one user's.
    public init(
        maxBodyBytes: Int = 1 << 20, maxConnections: UInt32 = 1_024, maxConnectionsPerAddress: UInt32 = 0, idleTimeoutSeconds: UInt32 = 30,
        headerMemoryBytes: Int = 32 << 10, streamSocketBufferBytes: Int = 64 << 10, loopBodyBytes: Int = 16 << 10, sharesPort: Bool = false,
        maxSpooledBodies: Int = 8, maxSpooledBodiesPerUser: Int = 2
    ) {
        self.maxSpooledBodies = maxSpooledBodies
        self.maxSpooledBodiesPerUser = maxSpooledBodiesPerUser
        self.sharesPort = sharesPort
        self.loopBodyBytes = loopBodyBytes
        self.streamSocketBufferBytes = streamSocketBufferBytes
        self.maxBodyBytes = maxBodyBytes
        self.maxConnections = maxConnections
        self.maxConnectionsPerAddress = maxConnectionsPerAddress
        self.idleTimeoutSeconds = idleTimeoutSeconds
        self.headerMemoryBytes = headerMemoryBytes
    }
}

extension HTTPServerLimits {
    /// How much of a chunked body is read past its cap before the connection is closed.
    static let overCapAllowance = 1 << 20
}

/// The server could not start: the address is taken or not an IPv4 address.
public struct HTTPServerStartFailure: Error, CustomStringConvertible {
    /// What failed and what to do.
    public let description: String
}

/// A libmicrohttpd daemon answering every request through an async handler, run on PGStore's
/// I/O thread (`IOReactor.shared`): the daemon's epoll descriptor is one more source of that
/// thread's event loop. On a request's last call the connection is suspended and a Swift task
/// runs the handler, preferring the same thread as its executor, so that the request, its
/// statements' replies and its answer are served in that one loop without waking another thread
/// (a route whose body is spooled to a file, an import, or whose body is over
/// `HTTPServerLimits.loopBodyBytes`, runs on the global executor instead: its work would hold
/// up every other request). The reply is stored and the connection
/// resumed, and the daemon then sends it. The thread never waits on anything else. An upload
/// (a route whose body is spooled) is suspended on its first call too, while `admitUpload`
/// judges its headers, before any of its body is read or an upload slot taken. Stopping
/// resumes every suspended connection first.
public final class HTTPServer: Sendable {
    private struct Tracker {
        /// Requests handed to the handler and not yet sent (the daemon's completion ends them),
        /// with their connections.
        var running: [ObjectIdentifier: (exchange: Exchange, connection: ConnectionHandle)] = [:]
        /// Uploads whose connections are suspended while the admission check judges their
        /// headers, with their connections: shutdown resumes those still waiting at its end.
        var admitting: [ObjectIdentifier: (exchange: Exchange, connection: ConnectionHandle)] = [:]
        /// Requests whose bodies are spooled (or being spooled) to files now.
        var spooling = 0
        var streams: [ObjectIdentifier: EventStreamBuffer] = [:]
        var stopped = false
    }

    let handler: @Sendable (HTTPRequest) async -> HTTPResponse
    let limits: HTTPServerLimits
    let bodyPolicy: @Sendable (_ method: String, _ path: String) -> HTTPBodyPolicy
    /// Sees each answer the server gives by itself, before any handler runs (a refusal of the
    /// request's framing, size or headers, a busy or stopping server), and returns it as sent.
    let answeredEarly: @Sendable (HTTPRequest, HTTPResponse) -> HTTPResponse
    /// Judges a spooling route's headers before its body is read or a slot taken; nil admits all.
    let admitUpload: (@Sendable (HTTPRequest) async -> HTTPUploadAdmission)?
    private let daemon = Mutex<DaemonHandle?>(nil)
    private let tracker = Mutex(Tracker())
    /// The uploads spooled now per holder the admission check named (`maxSpooledBodiesPerUser`).
    private let uploadsByHolder: KeyedAdmission<String>
    /// The port it listens on (the one chosen when started with 0).
    public let port: UInt16
    /// The address it listens on.
    public let host: String
    /// Whether it speaks HTTPS (`HTTPServerTLS`); the PEM texts stay with the daemon while it runs.
    public let tls: HTTPServerTLS?

    /// `http://` or `https://`, then `authority(host, port)`.
    public var baseURL: String { Self.baseURL(host, port, secure: tls != nil) }

    /// The base URL a server on `host:port` has, HTTPS when `secure`: what `baseURL` says once
    /// it listens, and what `taskserve --check` says it would.
    public static func baseURL(_ host: String, _ port: UInt16, secure: Bool) -> String {
        (secure ? "https://" : "http://") + authority(host, port)
    }

    /// `host:port` as a URL writes it: an IPv6 address in brackets, `[::1]:8080`.
    public static func authority(_ host: String, _ port: UInt16) -> String {
        host.contains(":") ? "[\(host)]:\(port)" : "\(host):\(port)"
    }

    private init(
        host: String, port: UInt16, tls: HTTPServerTLS?, epollFD: Int32, limits: HTTPServerLimits,
        bodyPolicy: @escaping @Sendable (String, String) -> HTTPBodyPolicy,
        answeredEarly: @escaping @Sendable (HTTPRequest, HTTPResponse) -> HTTPResponse,
        admitUpload: (@Sendable (HTTPRequest) async -> HTTPUploadAdmission)?,
        handler: @escaping @Sendable (HTTPRequest) async -> HTTPResponse
    ) {
        self.answeredEarly = answeredEarly
        self.admitUpload = admitUpload
        self.host = host
        self.tls = tls
        self.epollFD = epollFD
        self.port = port
        self.limits = limits
        uploadsByHolder = KeyedAdmission(limit: limits.maxSpooledBodiesPerUser)
        self.bodyPolicy = bodyPolicy
        self.handler = handler
    }

    /// Starts listening on `host:port` (port 0: any free one); `handler` answers every request.
    /// `bodyPolicy` gives a request (method, path) a body cap of its own (nil: `limits.maxBodyBytes`)
    /// and says whether its body goes to a temporary file. With `tls`, it speaks HTTPS only.
    /// `answeredEarly` sees (and may add headers to) each answer the server gives by itself,
    /// before `handler` would run: what the API makes its request id and access-log line from.
    /// `admitUpload` judges the headers of a request whose body would be spooled before any of
    /// it is read (the API verifies its token there): the connection waits, suspended, holding
    /// no upload slot, and a refusal is the answer (nil: every upload is admitted).
    public static func start(
        host: String = "127.0.0.1", port: UInt16, limits: HTTPServerLimits = HTTPServerLimits(), tls: HTTPServerTLS? = nil,
        bodyPolicy: @escaping @Sendable (_ method: String, _ path: String) -> HTTPBodyPolicy = { _, _ in HTTPBodyPolicy() },
        answeredEarly: @escaping @Sendable (_ request: HTTPRequest, _ response: HTTPResponse) -> HTTPResponse = { $1 },
        admitUpload: (@Sendable (_ request: HTTPRequest) async -> HTTPUploadAdmission)? = nil,
        handler: @escaping @Sendable (HTTPRequest) async -> HTTPResponse
    ) throws -> HTTPServer {
        // The daemon needs the server as its callbacks' context before it exists; a box lends it.
        let box = ServerBox()
        let context = Unmanaged.passUnretained(box).toOpaque()
        guard
            let started = taskbase_mhd_start(
                host, port,
                { cls, connection, url, method, version, data, size, slot in
                    Unmanaged<ServerBox>.fromOpaque(cls!).takeUnretainedValue().server!.access(
                        connection!, url: url, method: method, version: version, data: data, size: size!, slot: slot!)
                }, context,
                { cls, _, slot, _ in
                    guard let slot, let pointer = slot.pointee else { return }
                    // Called before the daemon closes the socket: a stream stops using it now.
                    let exchange = Unmanaged<Exchange>.fromOpaque(pointer).takeRetainedValue()
                    exchange.stream?.terminated()
                    // A stream answered but never sent (the connection closed before the daemon
                    // took the answer) ends too, or its producer and what it holds would stay.
                    if exchange.stream == nil, case .stream(let stream)? = exchange.reply.take()?.body { stream.terminated() }
                    exchange.spoolPlace?.leave()
                    // Sent (or the client left, an upload's perhaps as soon as its admission check
                    // resumed it): shutdown need not wait for it any longer, and its upload slot is free.
                    if exchange.dispatched || exchange.holdsSpoolSlot || exchange.admitting,
                        let server = Unmanaged<ServerBox>.fromOpaque(cls!).takeUnretainedValue().server
                    {
                        server.tracker.withLock { tracker in
                            if exchange.holdsSpoolSlot { tracker.spooling -= 1 }
                            if exchange.dispatched { _ = tracker.running.removeValue(forKey: ObjectIdentifier(exchange)) }
                            if exchange.admitting { _ = tracker.admitting.removeValue(forKey: ObjectIdentifier(exchange)) }
                        }
                    }
                    slot.pointee = nil
                },
                context,
                { _, target, _ in
                    // The request's target as sent, before the daemon decodes it: the router
                    // splits the path on its own slashes first, so an escaped one (%2F) stays
                    // inside its segment rather than becoming a separator.
                    Unmanaged.passRetained(Exchange(target: target)).toOpaque()
                }, context, limits.maxConnections, limits.maxConnectionsPerAddress, limits.idleTimeoutSeconds, limits.headerMemoryBytes,
                limits.sharesPort ? 1 : 0, tls?.keyPEM, tls?.certificatePEM, limits.listeningSocket ?? -1)
        else {
            let tlsCause = tls == nil ? "" : ", or GnuTLS refused the certificate or key"
            throw HTTPServerStartFailure(
                description:
                    "cannot listen on \(HTTPServer.authority(host, port)): the port is taken or the address is not a local IPv4 or IPv6 address\(tlsCause); choose another with --listen or TASKBASE_HTTP_ADDR"
            )
        }
        let handle = DaemonHandle(pointer: started)
        let epollFD = taskbase_mhd_epoll_fd(started)
        let server = HTTPServer(
            host: host, port: taskbase_mhd_port(started), tls: tls, epollFD: epollFD, limits: limits, bodyPolicy: bodyPolicy,
            answeredEarly: answeredEarly, admitUpload: admitUpload, handler: handler)
        server.daemon.withLock { $0 = handle }
        box.server = server
        server.box.withLock { $0 = box }
        guard
            epollFD >= 0,
            IOReactor.shared.attach(
                fd: epollFD,
                ready: { [limit = limits.maxConnections] in
                    // At its connection cap the daemon takes its listening socket out of its epoll
                    // set, and puts it back only at the start of a run once below the cap: after
                    // the run that closed a connection, nothing else would wake it for the
                    // clients waiting to connect (they waited for some other connection's timeout).
                    let atCap = taskbase_mhd_connection_count(handle.pointer) >= limit
                    _ = MHD_run(handle.pointer)
                    if atCap && taskbase_mhd_connection_count(handle.pointer) < limit { _ = MHD_run(handle.pointer) }
                },
                nextDue: {
                    let milliseconds = taskbase_mhd_timeout_ms(handle.pointer)
                    return milliseconds < 0 ? nil : milliseconds
                })
        else {
            MHD_stop_daemon(started)
            throw HTTPServerStartFailure(description: "cannot watch the HTTP daemon's sockets (epoll descriptor \(epollFD))")
        }
        return server
    }

    /// The daemon's epoll descriptor, attached to the I/O thread until the daemon stops.
    private let epollFD: Int32

    private let box = Mutex<ServerBox?>(nil)

    /// Requests being answered now.
    public var inFlight: Int { tracker.withLock { $0.running.count } }

    /// Bodies being spooled to files now (each holding an upload slot).
    var spoolingBodies: Int { tracker.withLock { $0.spooling } }

    /// Event streams open now.
    public var openStreams: Int { tracker.withLock { $0.streams.count } }

    /// The buffers of the streamed responses open now (for tests).
    var openStreamBuffers: [EventStreamBuffer] { tracker.withLock { Array($0.streams.values) } }

    /// Stops gracefully: no new connections or requests (one arriving on a connection kept
    /// open is answered 503 and the connection closed), every event stream ended, in-flight requests
    /// answered and downloads (streams not `resumable`) finished, waiting up to `grace`; a
    /// download still running then is cut off (`abort`). Then the daemon stops. A request whose handler is still
    /// running when `grace` ends has its handler's task cancelled and is answered 503 with
    /// `Retry-After` (the handler's answer, if one comes, goes nowhere): stopping the daemon with a
    /// connection suspended is undefined.
    /// `answeredHere` hears of each such request, its 503 and how long it had run (for the log).
    public func shutdown(
        grace: Duration = .seconds(10), answeredHere: @Sendable (HTTPRequest, HTTPResponse, Duration) -> Void = { _, _, _ in }
    ) async {
        guard let handle = daemon.withLock({ $0 }) else { return }
        // The daemon is the I/O thread's to run: calls that change it go there.
        let listener = await IOReactor.shared.perform { MHD_quiesce_daemon(handle.pointer) }
        // Closed now, not once the grace is over: a client connecting meanwhile is refused at once
        // (and tries another server) instead of waiting, unanswered, in the socket's queue. A
        // socket the workers share closes with the last of them.
        if listener >= 0 { close(listener) }
        let streams = tracker.withLock { tracker in
            tracker.stopped = true
            return Array(tracker.streams.values)
        }
        // Event streams end now (their clients resume by id); downloads may finish in the grace.
        for stream in streams where stream.resumable { stream.close() }
        await waitUntilIdle(for: grace)
        let unfinished = tracker.withLock { Array($0.streams.values) }
        for stream in unfinished { stream.abort() }
        if !unfinished.isEmpty { await waitUntilIdle(for: .seconds(1)) }
        // Anything still suspended now must be resumed before the daemon stops.
        // A handler that answered first resumes its own connection; the rest are answered here.
        let (late, admitting) = tracker.withLock { (Array($0.running.values), Array($0.admitting.values)) }
        // Their work is cancelled: a statement running is cancelled on the server and its
        // transaction rolled back, and none begins or commits after (only a COMMIT already sent
        // may land). Left to run, an import waiting on a lock committed after its client was
        // told 503, in the second before the process exited.
        // Answered first, then cancelled: a handler that returns at once when cancelled would
        // otherwise answer (and go unlogged) before the 503.
        let stopping = ServerProblems.stopping()
        for (exchange, connection) in late where exchange.reply.decide(stopping) {
            exchange.handler.withLock { $0 }?.cancel()
            resume(connection)
            answeredHere(exchange.request, stopping, ContinuousClock.now - exchange.dispatchedAt)
        }
        // So are uploads whose admission check has not said yet: nothing of them was read.
        for (exchange, connection) in admitting where exchange.admission.decide(.refused(ServerProblems.notTaking())) { resume(connection) }
        // The daemon sends those answers on its next turns; a client that does not read them
        // does not hold the stop for long.
        if !late.isEmpty || !admitting.isEmpty { await waitUntilIdle(for: .seconds(1)) }
        daemon.withLock { $0 = nil }
        // Detached, the loop runs the daemon no more, and this thread may stop it.
        await IOReactor.shared.detach(fd: epollFD)
        MHD_stop_daemon(handle.pointer)
        box.withLock { $0?.server = nil }
    }

    /// Waits up to `limit` for every answer to be sent, every stream to end and every upload's
    /// admission check to have been acted on.
    private func waitUntilIdle(for limit: Duration) async {
        let deadline = ContinuousClock.now + limit
        while ContinuousClock.now < deadline, tracker.withLock({ !$0.running.isEmpty || !$0.streams.isEmpty || !$0.admitting.isEmpty }) {
            try? await Task.sleep(for: .milliseconds(10))
        }
    }

    /// Whether `shutdown` has begun.
    public var isStopping: Bool { tracker.withLock { $0.stopped } }

    // MARK: - The daemon's calls

    fileprivate func access(
        _ connection: OpaquePointer, url: UnsafePointer<CChar>?, method: UnsafePointer<CChar>?, version: UnsafePointer<CChar>?,
        data: UnsafePointer<CChar>?, size: UnsafeMutablePointer<Int>, slot: UnsafeMutablePointer<UnsafeMutableRawPointer?>
    ) -> MHD_Result {
        // The daemon hears the target (and the exchange is made) before the first call.
        let exchange: Exchange
        if let pointer = slot.pointee {
            exchange = Unmanaged<Exchange>.fromOpaque(pointer).takeUnretainedValue()
        } else {
            exchange = Exchange(path: url.map { String(cString: $0) } ?? "/", hasQuery: true)
            slot.pointee = Unmanaged.passRetained(exchange).toOpaque()
        }
        if !exchange.begun {
            // First call: the headers are in; the body (if any) follows.
            exchange.begun = true
            exchange.request.method = method.map { String(cString: $0) } ?? "GET"
            // No query, no parameters: the daemon is not asked to list them.
            let (query, notText) = exchange.hasQuery ? Self.query(of: connection) : ([], nil)
            exchange.request.query = query
            let fields = Self.values(of: connection, kind: taskbase_mhd_header_kind).values
            exchange.request.headers = Self.headers(from: fields)
            var address = (UInt64(0), UInt64(0))
            let known = withUnsafeMutableBytes(of: &address) {
                taskbase_mhd_client_address(connection, $0.baseAddress!.assumingMemoryBound(to: UInt8.self))
            }
            exchange.request.peer = known == 1 ? PeerAddress(ipv6: address) : nil
            let policy = bodyPolicy(exchange.request.method, exchange.request.path)
            exchange.maxBodyBytes = policy.maxBytes ?? limits.maxBodyBytes
            if let refusal = ServerProblems.hostRefusal(version: version.map { String(cString: $0) } ?? "", fields: fields) {
                return refuse(refusal, exchange, on: connection)
            }
            if let notText {
                let reason = "its value is not text: a NUL character (%00), or bytes that are not UTF-8; escape the text as UTF-8"
                return refuse(ServerProblems.response(TaskError.validation(field: notText, reason: reason)), exchange, on: connection)
            }
            if let refusal = ServerProblems.ambiguousFraming(exchange.request) { return refuse(refusal, exchange, on: connection) }
            if let length = ServerProblems.declaredLength(exchange.request), length > exchange.maxBodyBytes {
                return refuse(ServerProblems.tooLarge(limit: exchange.maxBodyBytes), exchange, on: connection)
            }
            if policy.spoolsToFile {
                guard let admitUpload else { return takeSpoolSlot(exchange, holder: nil, on: connection) }
                return awaitAdmission(exchange, by: admitUpload, on: connection)
            }
            return taskbase_mhd_yes
        }
        if exchange.admitting { return settleAdmission(exchange, on: connection) }
        if size.pointee > 0 {
            let received = exchange.spool?.byteCount ?? exchange.request.body.count
            if exchange.tooLarge || received + size.pointee > exchange.maxBodyBytes {
                exchange.tooLarge = true
                exchange.dropped += size.pointee
                // MHD 0.9.75 cannot answer before the body has ended; closing is all there is.
                if exchange.dropped > HTTPServerLimits.overCapAllowance { return taskbase_mhd_no }
            } else if let data, let spool = exchange.spool {
                if !spool.append(data, count: size.pointee) { exchange.spoolFailed = true }
            } else if let data {
                data.withMemoryRebound(to: UInt8.self, capacity: size.pointee) {
                    exchange.request.body.append(contentsOf: UnsafeBufferPointer(start: $0, count: size.pointee))
                }
            }
            size.pointee = 0
            return taskbase_mhd_yes
        }
        if let response = exchange.reply.take() {
            if case .stream(let stream) = response.body { exchange.stream = stream }
            return queue(response, on: connection)
        }
        if exchange.tooLarge { return refuse(ServerProblems.tooLarge(limit: exchange.maxBodyBytes), exchange, on: connection) }
        if exchange.spoolFailed { return refuse(ServerProblems.cannotSpool(), exchange, on: connection) }
        guard !exchange.dispatched else { return taskbase_mhd_yes }
        exchange.dispatched = true
        exchange.dispatchedAt = .now
        if let spool = exchange.spool {
            exchange.request.spooledBody = spool.finish()
            exchange.spool = nil
        }
        let handle = ConnectionHandle(pointer: connection)
        let key = ObjectIdentifier(exchange)
        // Once shutdown has begun no request is dispatched (one arriving on a connection kept
        // open would run during the grace, or after shutdown took its last look at what is
        // running, and be suspended when the daemon stops): decided under the lock shutdown
        // sets `stopped` with, so every request is either running and seen, or refused here.
        let admitted = tracker.withLock { tracker in
            guard !tracker.stopped else { return false }
            tracker.running[key] = (exchange, handle)
            return true
        }
        guard admitted else { return refuse(ServerProblems.notTaking(), exchange, on: connection) }
        MHD_suspend_connection(connection)
        let (request, handler) = (exchange.request, handler)
        let answer: @Sendable () async -> Void = {
            let response = await handler(request)
            // Shutdown may have answered it already, and the daemon closed the connection since:
            // a stream this answer opened is never sent, and ends here.
            guard exchange.reply.decide(response) else {
                if case .stream(let stream) = response.body { stream.terminated() }
                return
            }
            self.resume(handle)
        }
        let task =
            if request.spooledBody == nil && request.body.count <= limits.loopBodyBytes {
                Task(executorPreference: IOReactor.shared, operation: answer)
            } else {
                Task(operation: answer)
            }
        exchange.handler.withLock { $0 = task }
        return taskbase_mhd_yes
    }

    /// How long data sent on an event stream may go unacknowledged before the kernel gives
    /// the connection up (`TCP_USER_TIMEOUT`): a client that is still there acknowledges within
    /// a round trip, whether or not it reads.
    static let streamDeadPeerMilliseconds: UInt32 = 60_000

    /// Suspends an upload's connection while `check` judges its headers, in a task: nothing of
    /// its body is read meanwhile, and it holds no upload slot. Suspended from the access
    /// handler's first call, libmicrohttpd 0.9.75 leaves the connection where the headers are
    /// in and the body not begun, and calls the handler that way again once it is resumed
    /// (`settleAdmission`), when an answer may still be queued in place of reading the body.
    /// A suspended connection does not time out and is not read from, so a client trickling
    /// bytes meanwhile costs nothing until the check has said.
    private func awaitAdmission(
        _ exchange: Exchange, by check: @escaping @Sendable (HTTPRequest) async -> HTTPUploadAdmission, on connection: OpaquePointer
    ) -> MHD_Result {
        let handle = ConnectionHandle(pointer: connection)
        // Decided under the lock shutdown sets `stopped` with, as a dispatch is: every upload
        // waiting on its check is seen by shutdown, which resumes it if the check has not.
        let waiting = tracker.withLock { tracker in
            guard !tracker.stopped else { return false }
            tracker.admitting[ObjectIdentifier(exchange)] = (exchange, handle)
            return true
        }
        guard waiting else { return refuse(ServerProblems.notTaking(), exchange, on: connection) }
        exchange.admitting = true
        MHD_suspend_connection(connection)
        let request = exchange.request
        Task(executorPreference: IOReactor.shared) {
            guard exchange.admission.decide(await check(request)) else { return }
            self.resume(handle)
        }
        return taskbase_mhd_yes
    }

    /// The handler's call once an upload's admission check (or shutdown) has resumed its
    /// connection, still before its body: the refusal queued (libmicrohttpd then reads none of
    /// the body and closes the connection once it is sent), or the upload's slot taken.
    private func settleAdmission(_ exchange: Exchange, on connection: OpaquePointer) -> MHD_Result {
        exchange.admitting = false
        let stopping = tracker.withLock { tracker in
            _ = tracker.admitting.removeValue(forKey: ObjectIdentifier(exchange))
            return tracker.stopped
        }
        switch exchange.admission.take() {
        case .refused(let response): return refuse(response, exchange, on: connection)
        case .admitted where stopping, nil: return refuse(ServerProblems.notTaking(), exchange, on: connection)
        case .admitted(let holder): return takeSpoolSlot(exchange, holder: holder, on: connection)
        }
    }

    /// Counts `exchange`'s upload among the bodies spooled at once, and among `holder`'s, and
    /// opens its file; or refuses it 503 when the server, or `holder`, has as many as it takes.
    private func takeSpoolSlot(_ exchange: Exchange, holder: String?, on connection: OpaquePointer) -> MHD_Result {
        let slot = tracker.withLock { tracker in
            guard tracker.spooling < limits.maxSpooledBodies else { return false }
            tracker.spooling += 1
            return true
        }
        guard slot else { return refuse(ServerProblems.uploadsBusy(limit: limits.maxSpooledBodies), exchange, on: connection) }
        if let holder {
            guard let place = uploadsByHolder.enter(holder) else {
                tracker.withLock { $0.spooling -= 1 }
                return refuse(ServerProblems.uploadsBusy(perUser: limits.maxSpooledBodiesPerUser), exchange, on: connection)
            }
            exchange.spoolPlace = place
        }
        exchange.holdsSpoolSlot = true
        guard let spool = BodySpool() else { return refuse(ServerProblems.cannotSpool(), exchange, on: connection) }
        exchange.spool = spool
        return taskbase_mhd_yes
    }

    /// Resumes a suspended connection, and has the I/O thread run the daemon on its next turn:
    /// run by the caller's loop, the daemon does not notice a resumption by itself.
    func resume(_ connection: ConnectionHandle) {
        MHD_resume_connection(connection.pointer)
        IOReactor.shared.poke(fd: epollFD)
    }

    /// Queues `response`, an answer the server gives by itself to `exchange`'s request before
    /// any handler runs, as `answeredEarly` makes it.
    private func refuse(_ response: HTTPResponse, _ exchange: Exchange, on connection: OpaquePointer) -> MHD_Result {
        queue(answeredEarly(exchange.request, response), on: connection)
    }

    private func queue(_ response: HTTPResponse, on connection: OpaquePointer) -> MHD_Result {
        let made: OpaquePointer?
        switch response.body {
        case .bytes(let bytes):
            made = bytes.withUnsafeBytes { buffer in
                MHD_create_response_from_buffer(buffer.count, UnsafeMutableRawPointer(mutating: buffer.baseAddress), taskbase_mhd_must_copy)
            }
        case .stream(let stream):
            let context = StreamContext(stream: stream, connection: ConnectionHandle(pointer: connection), server: self)
            // A client that stops reading leaves the daemon blocked on a full socket, never asking
            // the stream for more: on overflow or abort the socket is shut down, which the daemon sees.
            let socket = taskbase_mhd_connection_fd(connection)
            if socket >= 0 {
                var size = Int32(clamping: limits.streamSocketBufferBytes)
                _ = setsockopt(socket, SOL_SOCKET, SO_SNDBUF, &size, socklen_t(MemoryLayout<Int32>.size))
                // A client gone without closing (a phone out of coverage) acknowledges nothing:
                // the kernel gives the connection up once what was sent (a heartbeat at least) has
                // gone unacknowledged this long, and the daemon closes the stream, where the
                // kernel's retransmissions alone took about 15 minutes.
                var deadPeer = Self.streamDeadPeerMilliseconds
                _ = setsockopt(socket, Int32(IPPROTO_TCP), TCP_USER_TIMEOUT, &deadPeer, socklen_t(MemoryLayout<UInt32>.size))
            }
            stream.onOverflow { if socket >= 0 { _ = Glibc.shutdown(socket, Int32(SHUT_RDWR)) } }
            let stopping = tracker.withLock { tracker in
                tracker.streams[ObjectIdentifier(stream)] = stream
                return tracker.stopped
            }
            // A stream that starts once shutdown has begun ends at once, as those open then did.
            if stopping { stream.resumable ? stream.close() : stream.abort() }
            made = MHD_create_response_from_callback(
                taskbase_mhd_size_unknown, 4_096,
                { cls, _, buffer, max in
                    let context = Unmanaged<StreamContext>.fromOpaque(cls!).takeUnretainedValue()
                    let connection = context.connection
                    let count = context.stream.read(
                        into: UnsafeMutableRawPointer(buffer!), max: max, suspend: { MHD_suspend_connection(connection.pointer) },
                        resume: { context.server.resume(connection) })
                    return switch count {
                    case -2: taskbase_mhd_end_with_error
                    case -1: taskbase_mhd_end_of_stream
                    default: count
                    }
                }, Unmanaged.passRetained(context).toOpaque(),
                { cls in
                    let context = Unmanaged<StreamContext>.fromOpaque(cls!).takeRetainedValue()
                    context.stream.terminated()
                    context.server.tracker.withLock { _ = $0.streams.removeValue(forKey: ObjectIdentifier(context.stream)) }
                })
        }
        guard let made else { return taskbase_mhd_no }
        defer { MHD_destroy_response(made) }
        for (name, value) in response.headers {
            // withCString hands a short (inline) string over from the stack; passing the String
            // itself copied each name and value into an array of its own, six a response.
            name.withCString { name in value.withCString { value in _ = MHD_add_response_header(made, name, value) } }
        }
        return MHD_queue_response(connection, UInt32(response.status), made)
    }

    /// The request's header fields, as the daemon hands them over, by lower-cased name, a
    /// repeated field's values joined with ", ". Spaces and tabs around a value are not part of
    /// it (RFC 9110 §5.5); libmicrohttpd 0.9.75 drops those before it but keeps those after, so
    /// `Idempotency-Key: k ` was another key than `k`.
    static func headers(from fields: [(name: String, value: String)]) -> [String: String] {
        var headers: [String: String] = [:]
        func isSpace(_ byte: UInt8) -> Bool { byte == UInt8(ascii: " ") || byte == UInt8(ascii: "\t") }
        for (name, raw) in fields {
            // Space and tab are one UTF-8 byte each: trimmed on the bytes, and copied only when
            // there was something to trim.
            let bytes = raw.utf8
            let start = bytes.firstIndex { !isSpace($0) } ?? bytes.endIndex
            let end = bytes.lastIndex { !isSpace($0) }.map(bytes.index(after:)) ?? start
            let value = start == bytes.startIndex && end == bytes.endIndex ? raw : String(raw[start..<end])
            let key = name.lowercasedFieldName
            headers[key] = headers[key].map { $0 + ", " + value } ?? value
        }
        return headers
    }

    /// The query's parameters as the daemon decoded them, and the name of the first whose
    /// name or value is not text (bytes that are not UTF-8, or a NUL, which a C string would
    /// have cut short: `?assignee=a%00b` must not filter on `a`); nil when all are.
    private static func query(of connection: OpaquePointer) -> (parameters: [(name: String, value: String)], notText: String?) {
        let collector = values(of: connection, kind: taskbase_mhd_argument_kind, strict: true)
        return (collector.values, collector.notText)
    }

    /// The daemon's values of `kind`; `strict` notes the first not text (else repaired, U+FFFD).
    private static func values(of connection: OpaquePointer, kind: MHD_ValueKind, strict: Bool = false) -> ValueCollector {
        let collector = ValueCollector(strict: strict)
        withExtendedLifetime(collector) {
            _ = MHD_get_connection_values_n(
                connection, kind,
                { cls, _, key, keySize, value, valueSize in
                    let collector = Unmanaged<ValueCollector>.fromOpaque(cls!).takeUnretainedValue()
                    collector.add(key, keySize, value, valueSize)
                    return taskbase_mhd_yes
                }, Unmanaged.passUnretained(collector).toOpaque())
        }
        return collector
    }
}

/// A daemon or connection pointer, handed between the daemon's thread and Swift tasks: the
/// daemon allows resuming a suspended connection from any thread.
struct DaemonHandle: @unchecked Sendable {
    let pointer: OpaquePointer
}

/// See `DaemonHandle`.
struct ConnectionHandle: @unchecked Sendable {
    let pointer: OpaquePointer
}

/// The callbacks' context, pointing at the server once it exists.
private final class ServerBox: @unchecked Sendable {
    var server: HTTPServer?
}

/// One request in progress: filled by the daemon's thread, answered by a task.
private final class Exchange: @unchecked Sendable {
    var request: HTTPRequest
    /// Whether the daemon has called with the headers yet.
    var begun = false
    var tooLarge = false
    var maxBodyBytes = 0
    /// The body bytes read and dropped since it passed `maxBodyBytes`.
    var dropped = 0
    var dispatched = false
    var dispatchedAt = ContinuousClock.now
    /// The file the body goes to, for a route that spools; whether writing to it failed.
    var spool: BodySpool?
    var spoolFailed = false
    /// Whether this request counts among the bodies spooled at once (`maxSpooledBodies`), and
    /// among whose (`maxSpooledBodiesPerUser`).
    var holdsSpoolSlot = false
    var spoolPlace: KeyedAdmission<String>.Place?
    /// Whether the connection is suspended for the upload admission check, until the daemon
    /// calls again once it is resumed (`HTTPServer.settleAdmission`).
    var admitting = false
    /// The upload admission check's verdict, or shutdown's refusal, whichever came first.
    let admission = FirstDecision<HTTPUploadAdmission>()
    /// The event stream answering it, told when the connection closes.
    var stream: EventStreamBuffer?
    /// The task running its handler, once dispatched: cancelled when shutdown's grace ends first.
    let handler = Mutex<Task<Void, Never>?>(nil)
    /// The answer: the handler's task and shutdown race to answer a suspended request.
    let reply = FirstDecision<HTTPResponse>()

    /// Whether the target has a query (`?`): without one there are no parameters to collect.
    let hasQuery: Bool

    /// An exchange for a request to `path`, its headers not yet in; `hasQuery` when its target
    /// had a query (true when unknown: the daemon is then asked).
    init(path: String, hasQuery: Bool) {
        request = HTTPRequest(method: "", path: path)
        self.hasQuery = hasQuery
    }

    /// An exchange for a request to `target` as sent.
    convenience init(target: UnsafePointer<CChar>?) {
        let (path, hasQuery) = Self.path(ofTarget: target)
        self.init(path: path, hasQuery: hasQuery)
    }

    /// The path of a request target as sent (`/v1/tasks/CORE-7?x=1`: `/v1/tasks/CORE-7`), and
    /// whether a query followed it.
    static func path(ofTarget target: UnsafePointer<CChar>?) -> (path: String, hasQuery: Bool) {
        guard let target else { return ("/", false) }
        let whole = String(cString: target)
        guard let query = whole.utf8.firstIndex(of: UInt8(ascii: "?")) else { return (whole, false) }
        return (String(whole[..<query]), true)
    }
}

/// What the first of the parties racing to decide for a suspended connection decided (a
/// handler's answer or shutdown's; an admission check's verdict or shutdown's): only the first
/// may resume the connection, and the daemon's thread takes the decision once it is resumed.
private final class FirstDecision<Value: Sendable>: Sendable {
    private let state = Mutex<(value: Value?, decided: Bool)>((nil, false))

    /// Stores `value` when nothing was decided before; true when it was, and the caller
    /// resumes the connection.
    func decide(_ value: Value) -> Bool {
        state.withLock { state in
            guard !state.decided else { return false }
            state = (value, true)
            return true
        }
    }

    /// The decision, once.
    func take() -> Value? { state.withLock { $0.value.take() } }
}

/// What a streamed response's callbacks need.
private final class StreamContext: @unchecked Sendable {
    let stream: EventStreamBuffer
    let connection: ConnectionHandle
    let server: HTTPServer

    init(stream: EventStreamBuffer, connection: ConnectionHandle, server: HTTPServer) {
        self.stream = stream
        self.connection = connection
        self.server = server
    }
}

/// Collects the header or query values the daemon iterates over.
private final class ValueCollector {
    let strict: Bool
    var values: [(name: String, value: String)] = []
    /// Strict: the name of the first value that was not text.
    var notText: String?

    init(strict: Bool) {
        self.strict = strict
    }

    func add(_ key: UnsafePointer<CChar>?, _ keySize: Int, _ value: UnsafePointer<CChar>?, _ valueSize: Int) {
        let (name, nameIsText) = Self.text(key, keySize)
        let (text, valueIsText) = Self.text(value, valueSize)
        if strict, notText == nil, !nameIsText || !valueIsText { notText = name }
        // Room for a usual request's fields at once: grown one by one, the array was reallocated twice.
        if values.isEmpty { values.reserveCapacity(8) }
        values.append((name, text))
    }

    /// The `count` bytes at `pointer` as text, repaired when they are not UTF-8, and whether
    /// they were UTF-8 with no NUL.
    private static func text(_ pointer: UnsafePointer<CChar>?, _ count: Int) -> (String, Bool) {
        guard let pointer, count > 0 else { return ("", true) }
        return pointer.withMemoryRebound(to: UInt8.self, capacity: count) {
            let bytes = UnsafeBufferPointer(start: $0, count: count)
            if let valid = String(validating: bytes, as: UTF8.self) { return (valid, !bytes.contains(0)) }
            return (String(decoding: bytes, as: UTF8.self), false)
        }
    }
}
