import Testing
@testable import PGStore

@Test("a .env file gives comments, export prefixes and quotes their usual meaning")
func dotEnvParsesTheUsualForms() {
    let values = DotEnv.parse(
        """
        # comment
        export PGHOST=localhost
        PGUSER="task base"
        PGDATABASE='tasks' 
        PGPORT=5432 # trailing comment
        """)
    #expect(values == ["PGHOST": "localhost", "PGUSER": "task base", "PGDATABASE": "tasks", "PGPORT": "5432"])
}
