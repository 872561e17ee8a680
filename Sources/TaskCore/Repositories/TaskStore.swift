/// Everything a complete store provides; `TaskService` needs one of these.
public typealias TaskStore = UserRepository & TeamRepository & TaskRepository & TaskChangeFeed & TaskImportPort & TokenRepository
    & IdempotencyRepository & SchemaStatusReporting
