-- 0028_one_builder_of_the_path_key: one builder of the path keys: _match_changes probes with _path_keys

\ir functions/_match_changes.sql
