import Migrations
import Testing

@Suite("Statement splitting")
struct SQLStatementSplitterTests {
    private func split(_ text: String) -> [String] {
        let source = SourceText(text)
        return SQLStatementSplitter(source: source).statements(SQLLexer(source).tokens()).map(\.text)
    }

    @Test("splits at top-level semicolons and keeps a final statement without one")
    func basic() {
        #expect(split("SELECT 1; SELECT 2;\nSELECT 3") == ["SELECT 1;", "SELECT 2;", "SELECT 3"])
    }

    @Test("semicolons inside quotes, identifiers, dollar quotes and comments do not split")
    func quoted() {
        let text = """
            SELECT 'a;b', E'it\\'s;', "odd;name" FROM t; -- trailing; comment
            CREATE FUNCTION f() RETURNS int LANGUAGE plpgsql AS $body$ BEGIN RETURN 1; END; $body$;
            /* block; /* nested; */ still; */ SELECT $$x;y$$, $tag$ $$ ; $tag$;
            """
        #expect(
            split(text) == [
                #"SELECT 'a;b', E'it\'s;', "odd;name" FROM t;"#,
                "CREATE FUNCTION f() RETURNS int LANGUAGE plpgsql AS $body$ BEGIN RETURN 1; END; $body$;",
                "SELECT $$x;y$$, $tag$ $$ ; $tag$;",
            ])
    }

    @Test("a SQL-standard function body (BEGIN ATOMIC ... END) stays one statement, as in psql")
    func beginAtomic() {
        let text = """
            CREATE OR REPLACE FUNCTION f(x int) RETURNS int LANGUAGE sql
            BEGIN ATOMIC
              SELECT CASE WHEN x > 0 THEN 1 ELSE 0 END;
              SELECT 2;
            END;
            BEGIN; SELECT 1; END;
            """
        let statements = split(text)
        #expect(statements.count == 4)
        #expect(statements[0].hasSuffix("END;"))
        #expect(statements[1] == "BEGIN;")
    }

    @Test("semicolons inside parentheses do not split (rule bodies)")
    func parentheses() {
        #expect(split("CREATE RULE r AS ON INSERT TO t DO ALSO (SELECT 1; SELECT 2); SELECT 3;").count == 2)
    }

    @Test("a dollar sign inside an identifier or a $1 parameter is not a dollar quote")
    func dollarEdgeCases() {
        #expect(split("SELECT a$b$ FROM t; SELECT $1; SELECT 2;").count == 3)
    }

    @Test("a server error position maps to the file's line and column, counted in characters")
    func positionMapping() throws {
        let file = try migration(
            """
            -- migrate:up
            CREATE TABLE ok (id int);
            -- héllo wörld, multi-byte text before the error
            INSERT INTO ok VALUES ('é');
            SELECT nonsense
              FROM nowhere;
            """)
        let statement = file.up[2]
        let position = (statement.text as String).distance(from: statement.text.startIndex, to: statement.text.range(of: "nowhere")!.lowerBound) + 1
        #expect(file.location(of: statement, position: position) == SourceLocation(line: 6, column: 8))
        #expect(file.location(of: statement, position: nil) == SourceLocation(line: 5, column: 1))
    }
}
