-- expect: security-definer-search-path
-- migrate:up
ALTER FUNCTION taskbase_team_count() RESET search_path;
