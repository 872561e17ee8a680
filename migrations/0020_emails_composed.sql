-- Emails are stored composed (Unicode NFC) from this version on: the service composes every
-- address before it stores or compares one, so an address typed with a decomposed é (e and
-- U+0301) is the same address as one typed with é, as the memory store always held. Rows
-- written before kept what was typed, and a decomposed one could no longer be found by email
-- (only by #id). This recomposes them.
--
-- Two users whose addresses become one (the same person provisioned twice, in two forms) stop
-- the migration, nothing changed, with both ids named: give one of them another address (or
-- disable it), then run it again. A database not in UTF8 cannot normalize; it has nothing to do.
-- The update takes row locks on the few rows it changes; users is small.

-- migrate:up
DO $$
DECLARE
    twins text;
BEGIN
    IF pg_catalog.getdatabaseencoding() <> 'UTF8' THEN
        RETURN;
    END IF;
    SELECT string_agg(pg_catalog.format('%s (ids %s)', address, ids), '; ') INTO twins
      FROM (SELECT pg_catalog.normalize(pg_catalog.lower(u.email), 'NFC') AS address,
                   pg_catalog.string_agg(u.id::text, ', ' ORDER BY u.id) AS ids
              FROM public.users u
             GROUP BY 1
            HAVING pg_catalog.count(*) > 1) AS clashes;
    IF twins IS NOT NULL THEN
        RAISE EXCEPTION 'users whose addresses differ only in how their accents are encoded: %', twins
            USING HINT = 'give one user of each pair another address or disable it, then run taskmigrate up again';
    END IF;
    UPDATE public.users SET email = pg_catalog.normalize(email, 'NFC') WHERE email IS NOT NFC NORMALIZED;
END
$$;

-- migrate:down
-- Nothing to undo: a composed address is the same address.
SELECT 1;
