-- Task text is stored composed (Unicode NFC) from this version on, and the task list's text and
-- category filters ignore case by Unicode's rules whatever the database's locale.
--
-- The service composes every title, notes, category and external id before it stores one, and
-- every filter value before it compares one, so `é` typed as e and U+0301 is the `é` typed as
-- one code point, as the memory store always held; PostgreSQL compares code points, and a
-- decomposed title was not found by a search for the composed word. Rows written before kept
-- what was typed; this recomposes them (their version is kept: the text is the same text).
--
-- `taskbase_fold` is the collation the filters lower-case by: ICU's root locale, Unicode's full
-- case mappings, where a database created with LC_CTYPE C (initdb --no-locale, many container
-- images) lower-cases A-Z only, so `CAFÉ` did not find `café`. A server built without ICU, or
-- a database not in UTF8, gets the database's own rules instead, as before.
--
-- Two tasks of one team whose external ids become one stop the migration, nothing changed, with
-- both tasks named: change one of the ids, then run it again. The update takes row locks on the
-- rows it changes (those holding decomposed text) after one read of the table.

-- migrate:up
DO $$
DECLARE
    twins text;
BEGIN
    IF pg_catalog.getdatabaseencoding() = 'UTF8'
       AND EXISTS (SELECT FROM pg_catalog.pg_collation c WHERE c.collname = 'und-x-icu') THEN
        CREATE COLLATION public.taskbase_fold (provider = icu, locale = 'und');
    ELSE
        CREATE COLLATION public.taskbase_fold FROM pg_catalog."default";
    END IF;
    IF pg_catalog.getdatabaseencoding() <> 'UTF8' THEN
        RETURN;
    END IF;
    SELECT string_agg(pg_catalog.format('%s in team %s (task numbers %s)', external_id, team_id, numbers), '; ') INTO twins
      FROM (SELECT pg_catalog.normalize(t.external_id, 'NFC') AS external_id, t.team_id,
                   pg_catalog.string_agg(t.number::text, ', ' ORDER BY t.number) AS numbers
              FROM public.tasks t
             WHERE t.external_id IS NOT NULL
             GROUP BY 1, 2
            HAVING pg_catalog.count(*) > 1) AS clashes;
    IF twins IS NOT NULL THEN
        RAISE EXCEPTION 'tasks whose external ids differ only in how their accents are encoded: %', twins
            USING HINT = 'change the external id of one task of each pair, then run taskmigrate up again';
    END IF;
    UPDATE public.tasks
       SET title = pg_catalog.normalize(title, 'NFC'),
           notes = pg_catalog.normalize(notes, 'NFC'),
           category = pg_catalog.normalize(category, 'NFC'),
           external_id = pg_catalog.normalize(external_id, 'NFC')
     WHERE title IS NOT NFC NORMALIZED OR notes IS NOT NFC NORMALIZED
        OR category IS NOT NFC NORMALIZED OR external_id IS NOT NFC NORMALIZED;
END
$$;

-- migrate:down
-- The text stays composed: it is the same text.
DROP COLLATION public.taskbase_fold;
