//! Databases and tables: open with a read-consistency interval and bounded caches, filtered
//! counts, merge-insert by key, null-filled column additions, index creation with parameters,
//! optimize (compaction, index folding, version cleanup). Statistics are in stats.rs.

use std::os::raw::c_char;
use std::sync::Arc;
use std::time::Duration;

use arrow_array::{RecordBatch, RecordBatchIterator};
use arrow_ipc::reader::StreamReader;
use lancedb::index::scalar::{BTreeIndexBuilder, BitmapIndexBuilder, InvertedIndexParams};
use lancedb::index::vector::{IvfFlatIndexBuilder, IvfHnswSqIndexBuilder, IvfPqIndexBuilder};
use lancedb::index::Index;
use lancedb::table::{CompactionOptions, NewColumnTransform, OptimizeAction, OptimizeOptions};
use lance::dataset::cleanup::CleanupPolicy;
use lance::dataset::index::DatasetIndexRemapperOptions;
use lance::dataset::optimize::{commit_compaction, plan_compaction, CompactionMetrics};
use lancedb::DistanceType;
use futures::{StreamExt, TryStreamExt};
use serde::Deserialize;
use serde_json::json;

use crate::diskcache::{Cache, CachingProvider};
use crate::ffi::{arg_bytes, arg_str, guard, opt_str, write_string, Result};
use crate::runtime::{block_on, block_on_upkeep};

// Lance 0.37's own defaults, for a cache the caller leaves unset.
const DEFAULT_INDEX_CACHE_BYTES: usize = 6 << 30;
const DEFAULT_METADATA_CACHE_BYTES: usize = 1 << 30;

/// An open Lance database (a directory of tables) sharing one cache session.
pub struct PondDb {
    conn: lancedb::Connection,
    /// The disk cache of an archive on an object store, when the caller asked for one.
    cache: Option<Arc<Cache>>,
}

/// An open table. Reads honour the database's read-consistency interval, so commits made by
/// other handles and processes become visible.
pub struct PondTable {
    pub(crate) table: lancedb::Table,
}

#[derive(Deserialize, Default)]
struct DbOptions {
    /// None: never re-check for commits by others; 0: check on every read.
    read_consistency_ms: Option<u64>,
    index_cache_bytes: Option<usize>,
    metadata_cache_bytes: Option<usize>,
    /// A folder for the disk cache of an object store's immutable files (diskcache.rs), and
    /// its bound in bytes. Local tables ignore it.
    disk_cache_dir: Option<String>,
    disk_cache_bytes: Option<u64>,
}

fn parse_json<T: for<'de> Deserialize<'de> + Default>(p: *const c_char, what: &str) -> Result<T> {
    match opt_str(p)? {
        None => Ok(T::default()),
        Some(s) => serde_json::from_str(&s).map_err(|e| format!("invalid {what} JSON: {e}")),
    }
}

pub(crate) fn table_ref<'a>(t: *mut PondTable) -> Result<&'a PondTable> {
    if t.is_null() {
        return Err("table handle is null".into());
    }
    Ok(unsafe { &*t })
}

/// Opens (or creates the directory of) a Lance database.
#[no_mangle]
pub extern "C" fn pond_db_open(
    uri: *const c_char,
    options_json: *const c_char,
    out: *mut *mut PondDb,
) -> *mut c_char {
    guard(|| {
        let uri = arg_str(uri, "uri")?;
        let opts: DbOptions = parse_json(options_json, "database options")?;
        if out.is_null() {
            return Err("output pointer is null".into());
        }
        // Lance's defaults (6 GiB of index cache, 1 GiB of metadata cache) suit a server, not a
        // desktop daemon; the caller bounds them.
        let registry = lancedb::ObjectStoreRegistry::default();
        let cache = match (opts.disk_cache_dir, opts.disk_cache_bytes) {
            (Some(dir), Some(bytes)) if bytes > 0 => {
                let cache = Cache::open(dir.clone().into(), bytes)
                    .map_err(|e| format!("open the disk cache {dir}: {e}"))?;
                let cache = Arc::new(cache);
                let s3 = registry.get_provider("s3").ok_or("this build has no S3 support")?;
                registry.insert("s3", Arc::new(CachingProvider { inner: s3, cache: cache.clone() }));
                Some(cache)
            }
            _ => None,
        };
        let session = lancedb::Session::new(
            opts.index_cache_bytes.unwrap_or(DEFAULT_INDEX_CACHE_BYTES),
            opts.metadata_cache_bytes.unwrap_or(DEFAULT_METADATA_CACHE_BYTES),
            Arc::new(registry),
        );
        let mut builder = lancedb::connect(uri).session(Arc::new(session));
        if let Some(ms) = opts.read_consistency_ms {
            builder = builder.read_consistency_interval(Duration::from_millis(ms));
        }
        let conn = block_on(builder.execute()).map_err(|e| format!("open database {uri}: {e}"))?;
        unsafe { *out = Box::into_raw(Box::new(PondDb { conn, cache })) };
        Ok(())
    })
}

/// What the database's disk cache has done and holds, as JSON (`null` without one).
#[no_mangle]
pub extern "C" fn pond_db_disk_cache_stats(db: *mut PondDb, out_json: *mut *mut c_char) -> *mut c_char {
    guard(|| {
        if db.is_null() {
            return Err("database handle is null".into());
        }
        let db = unsafe { &*db };
        let stats = db.cache.as_ref().map(|c| c.stats());
        write_string(out_json, json!(stats).to_string())
    })
}

#[no_mangle]
pub extern "C" fn pond_db_close(db: *mut PondDb) {
    if !db.is_null() {
        if let Some(cache) = unsafe { &*db }.cache.as_ref() {
            cache.drain();
        }
        unsafe { drop(Box::from_raw(db)) };
    }
}

/// Opens an existing table of the database.
#[no_mangle]
pub extern "C" fn pond_table_open(
    db: *mut PondDb,
    name: *const c_char,
    out: *mut *mut PondTable,
) -> *mut c_char {
    guard(|| {
        if db.is_null() || out.is_null() {
            return Err("null argument".into());
        }
        let db = unsafe { &*db };
        let name = arg_str(name, "table name")?;
        let table = block_on(db.conn.open_table(name).execute())
            .map_err(|e| format!("open table {name}: {e}"))?;
        unsafe { *out = Box::into_raw(Box::new(PondTable { table })) };
        Ok(())
    })
}

#[no_mangle]
pub extern "C" fn pond_table_close(t: *mut PondTable) {
    if !t.is_null() {
        unsafe { drop(Box::from_raw(t)) };
    }
}

/// The table's current version (after the consistency check, so it names the latest commit
/// this handle can see).
#[no_mangle]
pub extern "C" fn pond_table_version(t: *mut PondTable, out: *mut u64) -> *mut c_char {
    guard(|| {
        let t = table_ref(t)?;
        let v = block_on(t.table.version()).map_err(|e| format!("version: {e}"))?;
        unsafe { *out = v };
        Ok(())
    })
}

/// Rows matching `filter` (an SQL predicate; NULL or empty counts every row).
#[no_mangle]
pub extern "C" fn pond_table_count(
    t: *mut PondTable,
    filter: *const c_char,
    out: *mut u64,
) -> *mut c_char {
    guard(|| {
        let t = table_ref(t)?;
        let filter = opt_str(filter)?;
        let n = block_on(t.table.count_rows(filter.clone()))
            .map_err(|e| format!("count rows where {}: {e}", filter.unwrap_or_default()))?;
        unsafe { *out = n as u64 };
        Ok(())
    })
}

fn read_ipc(bytes: &[u8]) -> Result<(arrow_schema::SchemaRef, Vec<RecordBatch>)> {
    let reader =
        StreamReader::try_new(std::io::Cursor::new(bytes), None).map_err(|e| format!("read Arrow IPC: {e}"))?;
    let schema = reader.schema();
    let batches = reader
        .collect::<std::result::Result<Vec<_>, _>>()
        .map_err(|e| format!("read Arrow IPC batch: {e}"))?;
    Ok((schema, batches))
}

#[derive(Deserialize)]
struct MergeSpec {
    on: Vec<String>,
    #[serde(default)]
    update_matched: bool,
    #[serde(default = "yes")]
    insert_unmatched: bool,
}

fn yes() -> bool {
    true
}

/// Appends the batches of an Arrow IPC stream as new rows, in one commit. Columns the stream
/// leaves out must be nullable; Lance reads them as nulls.
#[no_mangle]
pub extern "C" fn pond_table_append(t: *mut PondTable, ipc: *const u8, ipc_len: usize) -> *mut c_char {
    guard(|| {
        let t = table_ref(t)?;
        let (schema, batches) = read_ipc(arg_bytes(ipc, ipc_len, "ipc")?)?;
        let reader = RecordBatchIterator::new(batches.into_iter().map(Ok), schema);
        block_on(t.table.add(reader).execute())
            .map_err(|e| format!("append: {e}"))?;
        Ok(())
    })
}

/// Deletes the rows matching `filter`, in one commit, through the same handle as the appends
/// (a second handle would not see them until its read-consistency interval passed).
#[no_mangle]
pub extern "C" fn pond_table_delete(t: *mut PondTable, filter: *const c_char) -> *mut c_char {
    guard(|| {
        let t = table_ref(t)?;
        let filter = arg_str(filter, "filter")?;
        block_on(t.table.delete(filter)).map_err(|e| format!("delete: {e}"))?;
        Ok(())
    })
}

/// Merge-insert an Arrow IPC stream by key: rows whose key is absent are inserted, matched rows
/// are updated (when asked) or left alone. Result JSON: {version, inserted, updated, deleted}.
#[no_mangle]
pub extern "C" fn pond_table_merge_insert(
    t: *mut PondTable,
    spec_json: *const c_char,
    ipc: *const u8,
    ipc_len: usize,
    out_json: *mut *mut c_char,
) -> *mut c_char {
    guard(|| {
        let t = table_ref(t)?;
        let spec: MergeSpec = serde_json::from_str(arg_str(spec_json, "merge spec")?)
            .map_err(|e| format!("invalid merge spec: {e}"))?;
        if spec.on.is_empty() {
            return Err("merge-insert needs at least one key column".into());
        }
        let (schema, batches) = read_ipc(arg_bytes(ipc, ipc_len, "ipc")?)?;
        let on: Vec<&str> = spec.on.iter().map(|s| s.as_str()).collect();
        let mut builder = t.table.merge_insert(&on);
        if spec.update_matched {
            builder.when_matched_update_all(None);
        }
        if spec.insert_unmatched {
            builder.when_not_matched_insert_all();
        }
        let reader = RecordBatchIterator::new(batches.into_iter().map(Ok), schema);
        let res = block_on(builder.execute(Box::new(reader)))
            .map_err(|e| format!("merge-insert on {}: {e}", spec.on.join(",")))?;
        write_string(
            out_json,
            json!({
                "version": res.version,
                "inserted": res.num_inserted_rows,
                "updated": res.num_updated_rows,
                "deleted": res.num_deleted_rows,
            })
            .to_string(),
        )
    })
}

/// Updates the rows matching `filter`, setting each column of `updates_json` ({"column": "SQL
/// expression"}) in one commit. Callers build literals with their own escaping helper.
#[no_mangle]
pub extern "C" fn pond_table_update(
    t: *mut PondTable,
    filter: *const c_char,
    updates_json: *const c_char,
    out_rows: *mut u64,
) -> *mut c_char {
    guard(|| {
        let t = table_ref(t)?;
        let filter = arg_str(filter, "filter")?;
        let updates: std::collections::BTreeMap<String, String> =
            serde_json::from_str(arg_str(updates_json, "updates")?)
                .map_err(|e| format!("invalid updates: {e}"))?;
        if updates.is_empty() {
            return Err("no columns to update".into());
        }
        let mut builder = t.table.update().only_if(filter);
        for (col, expr) in &updates {
            builder = builder.column(col.as_str(), expr.as_str());
        }
        let res = block_on(builder.execute()).map_err(|e| format!("update where {filter}: {e}"))?;
        if !out_rows.is_null() {
            unsafe { *out_rows = res.rows_updated };
        }
        Ok(())
    })
}

/// Adds the columns of an Arrow IPC schema (a stream with no batches) as all-null columns: the
/// additive schema migration.
#[no_mangle]
pub extern "C" fn pond_table_add_null_columns(
    t: *mut PondTable,
    schema_ipc: *const u8,
    len: usize,
) -> *mut c_char {
    guard(|| {
        let t = table_ref(t)?;
        let (schema, _) = read_ipc(arg_bytes(schema_ipc, len, "schema")?)?;
        block_on(t.table.add_columns(NewColumnTransform::AllNulls(schema), None))
            .map_err(|e| format!("add columns: {e}"))?;
        Ok(())
    })
}

#[derive(Deserialize)]
struct IndexSpec {
    column: String,
    /// fts | btree | bitmap | ivf_pq | ivf_flat | ivf_hnsw_sq
    kind: String,
    name: Option<String>,
    #[serde(default)]
    replace: bool,
    /// Full-text parameters, in Lance's own names (base_tokenizer, language, with_position,
    /// max_token_length, lower_case, stem, remove_stop_words, ascii_folding, min_ngram_length,
    /// max_ngram_length, prefix_only).
    fts: Option<serde_json::Value>,
    /// l2 | cosine | dot
    distance: Option<String>,
    num_partitions: Option<u32>,
    num_sub_vectors: Option<u32>,
    sample_rate: Option<u32>,
    max_iterations: Option<u32>,
}

pub(crate) fn distance(name: &Option<String>) -> Result<DistanceType> {
    Ok(match name.as_deref().unwrap_or("cosine") {
        "cosine" => DistanceType::Cosine,
        "l2" => DistanceType::L2,
        "dot" => DistanceType::Dot,
        other => return Err(format!("unknown distance {other:?} (want cosine, l2 or dot)")),
    })
}

macro_rules! ivf {
    ($builder:expr, $spec:expr) => {{
        let mut b = $builder.distance_type(distance(&$spec.distance)?);
        if let Some(n) = $spec.num_partitions {
            b = b.num_partitions(n);
        }
        if let Some(n) = $spec.sample_rate {
            b = b.sample_rate(n);
        }
        if let Some(n) = $spec.max_iterations {
            b = b.max_iterations(n);
        }
        b
    }};
}

/// Creates (or with `replace`, rebuilds) an index described by a JSON spec.
#[no_mangle]
pub extern "C" fn pond_table_create_index(t: *mut PondTable, spec_json: *const c_char) -> *mut c_char {
    guard(|| {
        let t = table_ref(t)?;
        let spec: IndexSpec = serde_json::from_str(arg_str(spec_json, "index spec")?)
            .map_err(|e| format!("invalid index spec: {e}"))?;
        let index = match spec.kind.as_str() {
            "fts" => {
                let params: InvertedIndexParams = match &spec.fts {
                    None => InvertedIndexParams::default(),
                    Some(v) => serde_json::from_value(merge_fts_defaults(v)?)
                        .map_err(|e| format!("invalid full-text parameters: {e}"))?,
                };
                Index::FTS(params)
            }
            "btree" => Index::BTree(BTreeIndexBuilder::default()),
            "bitmap" => Index::Bitmap(BitmapIndexBuilder::default()),
            "ivf_flat" => Index::IvfFlat(ivf!(IvfFlatIndexBuilder::default(), spec)),
            "ivf_hnsw_sq" => Index::IvfHnswSq(ivf!(IvfHnswSqIndexBuilder::default(), spec)),
            "ivf_pq" => {
                let mut b = ivf!(IvfPqIndexBuilder::default(), spec);
                if let Some(n) = spec.num_sub_vectors {
                    b = b.num_sub_vectors(n);
                }
                Index::IvfPq(b)
            }
            other => return Err(format!("unknown index kind {other:?}")),
        };
        let mut builder = t.table.create_index(&[spec.column.as_str()], index).replace(spec.replace);
        if let Some(name) = spec.name.clone() {
            builder = builder.name(name);
        }
        block_on_upkeep(move || builder.execute())
            .map_err(|e| format!("create {} index on {}: {e}", spec.kind, spec.column))?;
        Ok(())
    })
}

/// Lance's serde form of InvertedIndexParams has no defaults for some fields; start from the
/// defaults and overlay what the caller gave.
fn merge_fts_defaults(given: &serde_json::Value) -> Result<serde_json::Value> {
    let mut base = serde_json::to_value(InvertedIndexParams::default()).map_err(|e| e.to_string())?;
    let (Some(b), Some(g)) = (base.as_object_mut(), given.as_object()) else {
        return Err("full-text parameters must be a JSON object".into());
    };
    for (k, v) in g {
        if !b.contains_key(k) {
            return Err(format!("unknown full-text parameter {k:?}"));
        }
        b.insert(k.clone(), v.clone());
    }
    Ok(base)
}

#[derive(Deserialize, Default)]
struct OptimizeSpec {
    #[serde(default)]
    compact: bool,
    target_rows_per_fragment: Option<usize>,
    /// Compact one round only: the groups of fragments Lance plans, taken in order while
    /// their rows stay within this (at least one group), written and committed together. The
    /// result says how many groups were left for later rounds, so that the caller can remove
    /// what a round replaced before the next writes more (a local table only).
    round_rows: Option<usize>,
    /// Rewrite every fragment whose share of deleted rows is above this (Lance's default is
    /// 0.1; 0 rewrites any fragment with a deleted row, so the rows leave its files and every
    /// index the compaction remaps).
    materialize_deletions_threshold: Option<f32>,
    #[serde(default)]
    index: bool,
    /// Fold only the indexes named (absent: every index).
    index_names: Option<Vec<String>>,
    /// Remove versions older than this many seconds (absent: no cleanup by age).
    prune_older_than_secs: Option<u64>,
    /// Remove the versions before this one (absent: no cleanup by version). Exact where an
    /// age is not: the caller knows which versions were replaced when.
    prune_before_version: Option<u64>,
    #[serde(default)]
    delete_unverified: bool,
}

/// Runs the asked parts of optimize in a fixed order (compact, fold new rows into indexes,
/// prune old versions). Result JSON names what each part did.
#[no_mangle]
pub extern "C" fn pond_table_optimize(
    t: *mut PondTable,
    spec_json: *const c_char,
    out_json: *mut *mut c_char,
) -> *mut c_char {
    guard(|| {
        let t = table_ref(t)?;
        let spec: OptimizeSpec = parse_json(spec_json, "optimize spec")?;
        let mut out = serde_json::Map::new();
        if spec.compact {
            let mut options = CompactionOptions::default();
            if let Some(n) = spec.target_rows_per_fragment {
                options.target_rows_per_fragment = n;
            }
            if let Some(t) = spec.materialize_deletions_threshold {
                options.materialize_deletions = true;
                options.materialize_deletions_threshold = t;
            }
            let compaction = match spec.round_rows {
                Some(rows) => {
                    let (c, left) = compact_round(t, options, rows).map_err(|e| format!("compact: {e}"))?;
                    out.insert("compaction_groups_left".into(), json!(left));
                    Some(c)
                }
                None => {
                    block_on_upkeep(move || t.table.optimize(OptimizeAction::Compact {
                        options,
                        remap_options: None,
                    }))
                    .map_err(|e| format!("compact: {e}"))?
                    .compaction
                }
            };
            if let Some(c) = compaction {
                out.insert(
                    "compaction".into(),
                    json!({"fragments_removed": c.fragments_removed, "fragments_added": c.fragments_added,
                           "files_removed": c.files_removed, "files_added": c.files_added}),
                );
            }
        }
        if spec.index {
            let mut options = OptimizeOptions::default();
            options.index_names = spec.index_names.clone();
            block_on_upkeep(move || t.table.optimize(OptimizeAction::Index(options)))
                .map_err(|e| format!("fold new rows into indexes: {e}"))?;
            out.insert("indexes_folded".into(), json!(true));
        }
        if let Some(version) = spec.prune_before_version {
            // lancedb's optimize takes only an age; Lance's own cleanup takes a version.
            let dataset = t
                .table
                .dataset()
                .ok_or_else(|| "prune old versions: not a local table".to_string())?;
            let policy = CleanupPolicy {
                before_version: Some(version),
                delete_unverified: spec.delete_unverified,
                error_if_tagged_old_versions: false,
                ..CleanupPolicy::default()
            };
            let stats = block_on_upkeep(move || async move {
                let ds = dataset.get_mut().await.map_err(|e| e.to_string())?;
                ds.cleanup_with_policy(policy).await.map_err(|e| e.to_string())
            })
            .map_err(|e| format!("prune old versions: {e}"))?;
            out.insert(
                "prune".into(),
                json!({"bytes_removed": stats.bytes_removed, "old_versions": stats.old_versions}),
            );
        } else if let Some(secs) = spec.prune_older_than_secs {
            let action = OptimizeAction::Prune {
                older_than: Some(
                    lancedb::table::Duration::try_seconds(secs as i64)
                        .ok_or_else(|| format!("prune age {secs}s is out of range"))?,
                ),
                delete_unverified: Some(spec.delete_unverified),
                error_if_tagged_old_versions: Some(false),
            };
            let stats = block_on_upkeep(move || t.table.optimize(action))
            .map_err(|e| format!("prune old versions: {e}"))?;
            if let Some(p) = stats.prune {
                out.insert(
                    "prune".into(),
                    json!({"bytes_removed": p.bytes_removed, "old_versions": p.old_versions}),
                );
            }
        }
        write_string(out_json, serde_json::Value::Object(out).to_string())
    })
}

/// One round of compaction (see OptimizeSpec::round_rows), as Lance's own compact_files does
/// it but over the first groups of its plan only. Returns the metrics and the groups left.
fn compact_round(t: &PondTable, mut options: CompactionOptions, round_rows: usize) -> Result<(CompactionMetrics, usize)> {
    let dataset = t.table.dataset().ok_or_else(|| "rounds: not a local table".to_string())?;
    options.validate();
    let options = &options;
    block_on_upkeep(move || async move {
        let mut ds = dataset.get_mut().await.map_err(|e| e.to_string())?;
        let plan = plan_compaction(&ds, &options).await.map_err(|e| e.to_string())?;
        let mut round = Vec::new();
        let mut rows = 0usize;
        let mut left = 0usize;
        for task in plan.compaction_tasks() {
            let n: usize = task.task.fragments.iter().map(|f| f.physical_rows.unwrap_or(0)).sum();
            if left == 0 && (round.is_empty() || rows + n <= round_rows) {
                rows += n;
                round.push(task);
            } else {
                left += 1;
            }
        }
        if round.is_empty() {
            return Ok((CompactionMetrics::default(), 0));
        }
        let threads = options.num_threads.unwrap_or_else(|| std::thread::available_parallelism().map_or(1, |n| n.get()));
        let done: Vec<_> = {
            let ds_ref = &*ds;
            futures::stream::iter(round.iter().map(|task| task.execute(ds_ref)))
                .buffer_unordered(threads.max(1))
                .try_collect()
                .await
                .map_err(|e: lance::Error| e.to_string())?
        };
        let metrics = commit_compaction(&mut ds, done, Arc::new(DatasetIndexRemapperOptions::default()), &options)
            .await
            .map_err(|e| e.to_string())?;
        Ok((metrics, left))
    })
}

/// The table's current schema as an Arrow IPC stream holding no batches.
#[no_mangle]
pub extern "C" fn pond_table_schema(t: *mut PondTable, out: *mut *mut u8, out_len: *mut usize) -> *mut c_char {
    guard(|| {
        let t = table_ref(t)?;
        let schema = block_on(t.table.schema()).map_err(|e| format!("schema: {e}"))?;
        let mut buf = Vec::new();
        {
            let mut w = arrow_ipc::writer::StreamWriter::try_new(&mut buf, &schema)
                .map_err(|e| format!("encode schema: {e}"))?;
            w.finish().map_err(|e| format!("encode schema: {e}"))?;
        }
        crate::ffi::write_bytes(out, out_len, buf)
    })
}

