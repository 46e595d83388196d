/* pond_native.h: the C ABI of Pond's native module (store/lance/native/src).
 *
 * Every function returning `char*` returns NULL on success, or an error message that the caller
 * frees with pond_string_free. Results travel through out-pointers. JSON arguments and results
 * are UTF-8 C strings; Arrow data travels as Arrow IPC stream bytes. */
#ifndef POND_NATIVE_H
#define POND_NATIVE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

typedef struct PondDb PondDb;
typedef struct PondTable PondTable;
typedef struct PondStream PondStream;
typedef struct PondTokenizer PondTokenizer;

typedef struct PondEncoding {
  size_t rows;
  size_t width;
  int64_t *ids;
  int64_t *attention_mask;
  int64_t *type_ids;
  uint8_t *truncated;
} PondEncoding;

void pond_string_free(char *s);
void pond_bytes_free(uint8_t *p, size_t len);
char *pond_native_versions(char **out_json);

/* options_json: {"read_consistency_ms": n, "index_cache_bytes": n, "metadata_cache_bytes": n,
 *                "disk_cache_dir": "path", "disk_cache_bytes": n} (the disk cache serves an
 *                object store's immutable files from local disk; local tables ignore it) */
char *pond_db_open(const char *uri, const char *options_json, PondDb **out);
/* result: {"hits", "misses", "bypassed", "stored", "evicted", "errors", "files", "bytes",
 * "limit_bytes"}, or null for a database opened without a disk cache */
char *pond_db_disk_cache_stats(PondDb *db, char **out_json);
void pond_db_close(PondDb *db);
char *pond_table_open(PondDb *db, const char *name, PondTable **out);
void pond_table_close(PondTable *t);

char *pond_table_version(PondTable *t, uint64_t *out);
char *pond_table_count(PondTable *t, const char *filter, uint64_t *out);
/* Appends the batches of an Arrow IPC stream in one commit. */
char *pond_table_append(PondTable *t, const uint8_t *ipc, size_t ipc_len);
/* Deletes the rows matching filter in one commit. */
char *pond_table_delete(PondTable *t, const char *filter);
/* spec_json: {"on": [cols], "update_matched": bool, "insert_unmatched": bool}
 * result: {"version", "inserted", "updated", "deleted"} */
char *pond_table_merge_insert(PondTable *t, const char *spec_json, const uint8_t *ipc, size_t ipc_len,
                              char **out_json);
/* updates_json: {"column": "SQL expression"}; literals are the caller's to quote. */
char *pond_table_update(PondTable *t, const char *filter, const char *updates_json, uint64_t *out_rows);
char *pond_table_add_null_columns(PondTable *t, const uint8_t *schema_ipc, size_t len);
/* spec_json: {"column", "kind": fts|btree|bitmap|ivf_pq|ivf_flat|ivf_hnsw_sq, "name", "replace",
 *             "fts": {Lance InvertedIndexParams}, "distance", "num_partitions", "num_sub_vectors",
 *             "sample_rate", "max_iterations"} */
char *pond_table_create_index(PondTable *t, const char *spec_json);
/* spec_json: {"compact", "target_rows_per_fragment", "materialize_deletions_threshold", "index",
 *             "index_names", "prune_older_than_secs", "delete_unverified"} */
char *pond_table_optimize(PondTable *t, const char *spec_json, char **out_json);
char *pond_table_indexes(PondTable *t, char **out_json);
char *pond_table_stats(PondTable *t, char **out_json);
/* The schema as an Arrow IPC stream with no batches. Free with pond_bytes_free. */
char *pond_table_schema(PondTable *t, uint8_t **out, size_t *out_len);

/* spec_json: {"columns", "filter", "limit", "offset", "with_row_id", "batch_rows",
 *             "fts": {"query", "column", "operator"},
 *             "vector": {"column", "vector", "distance", "nprobes", "refine_factor", "exact",
 *                        "postfilter"}} */
char *pond_table_query(PondTable *t, const char *spec_json, PondStream **out);
/* One batch as an Arrow IPC stream; *out == NULL at the end. Free with pond_bytes_free. */
char *pond_stream_next(PondStream *s, uint8_t **out, size_t *out_len);
void pond_stream_close(PondStream *s);

char *pond_tokenizer_load(const char *path, size_t max_length, PondTokenizer **out);
void pond_tokenizer_free(PondTokenizer *t);
char *pond_tokenizer_encode(PondTokenizer *t, const uint8_t *data, size_t data_len, const size_t *offsets,
                            size_t n, bool add_special_tokens, PondEncoding **out);
void pond_encoding_free(PondEncoding *e);

#endif
