-- Makes FerretDB's pushed-down equality filters use an index.
--
-- FerretDB 1.24 turns an index declared through the MongoDB protocol into a btree on
-- `(_jsonb -> 'field')`, but pushes an equality filter down as `_jsonb -> 'field' @> value`,
-- an operator a btree cannot answer: every filtered query, even a lookup by _id, scanned
-- the whole table (all organizations). For every field of every btree FerretDB creates,
-- this adds a GIN (jsonb_path_ops) index on the same expression, which `@>` can use.
-- scripts/stack.sh applies it on every `up`; it is idempotent and also covers the indexes
-- that exist already.

SET client_min_messages = warning;

CREATE OR REPLACE FUNCTION ferretdb_pushdown_indexes(btree regclass) RETURNS void
LANGUAGE plpgsql AS $$
DECLARE
  tbl regclass;
  nkeys int;
  expr text;
  field text;
BEGIN
  SELECT i.indrelid::regclass, i.indnkeyatts INTO tbl, nkeys
  FROM pg_index i JOIN pg_class c ON c.oid = i.indexrelid JOIN pg_am am ON am.oid = c.relam
  WHERE i.indexrelid = btree AND am.amname = 'btree';
  IF tbl IS NULL THEN
    RETURN;
  END IF;
  FOR k IN 1..nkeys LOOP
    expr := pg_get_indexdef(btree, k, true);
    -- Only top-level fields: FerretDB does not push dotted paths down by default.
    field := replace((regexp_match(expr, '^\(?_jsonb -> ''((?:[^'']|'''')+)''::text\)?$'))[1], '''''', '''');
    CONTINUE WHEN field IS NULL;
    EXECUTE format(
      'CREATE INDEX IF NOT EXISTS %I ON %s USING gin ((_jsonb -> %L) jsonb_path_ops)',
      left((SELECT relname FROM pg_class WHERE oid = tbl), 40) || '_' || left(md5(field), 10) || '_eq',
      tbl,
      field
    );
  END LOOP;
END;
$$;

CREATE OR REPLACE FUNCTION ferretdb_pushdown_indexes_on_create() RETURNS event_trigger
LANGUAGE plpgsql AS $$
DECLARE
  cmd record;
BEGIN
  FOR cmd IN SELECT objid FROM pg_event_trigger_ddl_commands() WHERE object_type = 'index' LOOP
    PERFORM ferretdb_pushdown_indexes(cmd.objid::regclass);
  END LOOP;
END;
$$;

DROP EVENT TRIGGER IF EXISTS ferretdb_pushdown_indexes;
CREATE EVENT TRIGGER ferretdb_pushdown_indexes ON ddl_command_end
  WHEN TAG IN ('CREATE INDEX') EXECUTE FUNCTION ferretdb_pushdown_indexes_on_create();

-- The indexes made before this trigger existed.
SELECT ferretdb_pushdown_indexes(i.indexrelid::regclass)
FROM pg_index i JOIN pg_class t ON t.oid = i.indrelid JOIN pg_attribute a ON a.attrelid = t.oid AND a.attname = '_jsonb'
JOIN pg_namespace n ON n.oid = t.relnamespace
WHERE n.nspname NOT IN ('pg_catalog', 'information_schema');
