import Foundation
import TaskCore
import TaskSessionContract
import TaskStoreMemory
import TaskbaseClient
import TaskbaseServer
import Testing

@Suite("A request that never left the client is retried, whatever its method")
struct RetryNeverSentTests {
    @Test("an edit sent while the server is down (connection refused) is sent again once it is back, and succeeds")
    func patchRetriedWhileServerDown() async throws {
        let service = TaskSessionContract.service(over: MemoryTaskStore())
        let options = APIOptions(secrets: Backend.secrets, version: "test")
        let owner = try await service.createUser(email: "restart.owner@example.com", displayName: "Owner")
        let team = try await service.createTeam(key: "ROLL", name: "Rolling", as: .id(owner.id)).key
        let task = try await service.createTask(in: team, try TaskDraft(title: "Before"), as: .id(owner.id))
        let (secret, digest) = try Backend.secrets.generate()
        _ = try await service.createToken(for: .id(owner.id), name: "restart", lifetime: 3_600, digest: digest)
        // A port that was free a moment ago: the server goes away, as in a rolling restart.
        let first = try APIServer.start(service: service, options: options)
        let port = first.http.port
        await first.shutdown(grace: .zero)
        let client = TaskbaseClient(
            ClientConfiguration(
                baseURL: try #require(URL(string: "http://127.0.0.1:\(port)")), token: secret, retries: 30, backoff: .milliseconds(50),
                maximumBackoff: .milliseconds(200)))
        let edit = Task { try await client.updateTask(task.key, try TaskChanges(title: "After"), expectedVersion: 1) }
        try await Task.sleep(for: .milliseconds(400))
        let second = try APIServer.start(service: service, options: options, port: port)
        // Before: the PATCH was never retried, and the refused connection was the call's error.
        let edited = try await edit.value
        #expect(edited.title == "After" && edited.version == 2)
        #expect(try await service.task(task.key, as: .id(owner.id)).version == 2)
        await second.shutdown()
    }
}
