//! Table and index statistics read from the table's manifest alone.
//!
//! lancedb's own `stats` and `index_stats` open what they describe: `stats` reads the column
//! metadata of every data file (to sum column sizes) and lists the indexes through
//! `index_statistics`, which loads every index (a text index's whole token and document sets)
//! to report its type. Pond asks for both after every round of captures (the store's
//! `Diagnose`), for row counts and index coverage the manifest already records: with 492
//! fragments a table that took 0.7-0.8 s of CPU and left what it read in the session's caches
//! (docs/benchmarks.md, 2026-12-07, fifth session). These read the manifest; the files and
//! indexes are opened only by the reads and searches that need them.

use std::collections::BTreeSet;
use std::os::raw::c_char;

use lance::Dataset;
use lance_index::DatasetIndexExt;
use serde_json::json;

use crate::ffi::{guard, write_string, Result};
use crate::runtime::block_on;
use crate::table::{table_ref, PondTable};

/// lancedb's threshold for a small fragment (its `TableStatistics`), kept so the counts Pond
/// shows do not move with this change.
const SMALL_FRAGMENT_ROWS: usize = 100_000;

/// Lance's own indexes, which lancedb leaves out of its lists too.
const SYSTEM_INDEXES: [&str; 2] = ["__lance_frag_reuse", "__lance_mem_wal"];

/// Table statistics as JSON: {rows, bytes, indexes, fragments, small_fragments}. Rows are the
/// live rows (deleted ones not counted); bytes are the data files' sizes, as the manifest
/// records them (a file written by a Lance that did not record its size is asked of the store).
#[no_mangle]
pub extern "C" fn pond_table_stats(t: *mut PondTable, out_json: *mut *mut c_char) -> *mut c_char {
    guard(|| {
        let t = table_ref(t)?;
        let stats = block_on(async {
            let ds = current(t).await?;
            let rows = live_rows(&ds).await?;
            let mut bytes = 0u64;
            let mut small = 0usize;
            for f in ds.fragments().iter() {
                if f.physical_rows.unwrap_or(0) < SMALL_FRAGMENT_ROWS {
                    small += 1;
                }
                for file in &f.files {
                    bytes += match file.file_size_bytes.get() {
                        Some(n) => n.get(),
                        None => ds
                            .object_store()
                            .size(&ds.data_dir().child(file.path.as_str()))
                            .await
                            .map_err(|e| format!("size of {}: {e}", file.path))?,
                    };
                }
            }
            let indices = ds.load_indices().await.map_err(|e| e.to_string())?;
            let indexes = indices
                .iter()
                .map(|ix| ix.name.as_str())
                .filter(|name| !SYSTEM_INDEXES.contains(name))
                .collect::<BTreeSet<_>>()
                .len();
            Ok::<_, String>(json!({
                "rows": rows,
                "bytes": bytes,
                "indexes": indexes,
                "fragments": ds.fragments().len(),
                "small_fragments": small,
            }))
        })
        .map_err(|e| format!("table stats: {e}"))?;
        write_string(out_json, stats.to_string())
    })
}

/// Every index of the table with its coverage, as a JSON array of
/// {name, kind, columns, indexed_rows, unindexed_rows}: one entry a name, however many delta
/// segments it has. The coverage is counted as Lance's `index_statistics` counts it, over the
/// fragments each segment's bitmap names. The kind comes from the index's recorded details;
/// an index without them (a vector index, or one written before Lance recorded them) is asked
/// of lancedb, which opens it.
#[no_mangle]
pub extern "C" fn pond_table_indexes(t: *mut PondTable, out_json: *mut *mut c_char) -> *mut c_char {
    guard(|| {
        let t = table_ref(t)?;
        let list = block_on(async {
            let ds = current(t).await?;
            let total = live_rows(&ds).await?;
            let indices = ds.load_indices().await.map_err(|e| e.to_string())?;
            // One entry a name, in the manifest's order, with all of its segments.
            let mut names: Vec<&str> = Vec::new();
            for ix in indices.iter().filter(|ix| !SYSTEM_INDEXES.contains(&ix.name.as_str())) {
                if !names.contains(&ix.name.as_str()) {
                    names.push(&ix.name);
                }
            }
            let mut out = Vec::new();
            for name in names {
                let segments: Vec<_> = indices.iter().filter(|ix| ix.name == name).collect();
                let first = segments[0];
                let columns: Vec<String> = first
                    .fields
                    .iter()
                    .filter_map(|id| ds.schema().field_by_id(*id).map(|f| f.name.clone()))
                    .collect();
                let mut indexed = Some(0usize);
                for seg in &segments {
                    let Some(bitmap) = seg.fragment_bitmap.as_ref() else {
                        indexed = None;
                        break;
                    };
                    for f in ds.fragments().iter().filter(|f| bitmap.contains(f.id as u32)) {
                        indexed = indexed.zip(f.num_rows()).map(|(a, b)| a + b);
                    }
                }
                let mut kind = first.index_details.as_ref().and_then(|d| scalar_kind(&d.type_url)).map(str::to_string);
                if kind.is_none() || indexed.is_none() {
                    // A vector index's kind, or fragments without row counts (lancedb's statistics
                    // migrate them): asked of lancedb once, which opens the index.
                    let Some(s) = t.table.index_stats(name).await.map_err(|e| e.to_string())? else {
                        continue; // dropped since the manifest was read
                    };
                    kind = kind.or_else(|| Some(s.index_type.to_string()));
                    indexed = indexed.or(Some(s.num_indexed_rows));
                }
                let (kind, indexed) = (kind.unwrap_or_default(), indexed.unwrap_or(0));
                out.push(json!({
                    "name": name,
                    "kind": kind,
                    "columns": columns,
                    "indexed_rows": indexed,
                    "unindexed_rows": total.saturating_sub(indexed),
                }));
            }
            Ok::<_, String>(out)
        })
        .map_err(|e| format!("list indexes: {e}"))?;
        write_string(out_json, serde_json::Value::Array(list).to_string())
    })
}

/// The rows not deleted, from the fragments' recorded counts, or counted by Lance when a
/// fragment has none (written by an old Lance).
async fn live_rows(ds: &Dataset) -> Result<usize> {
    let mut rows = 0;
    for f in ds.fragments().iter() {
        match f.num_rows() {
            Some(n) => rows += n,
            None => return ds.count_rows(None).await.map_err(|e| e.to_string()),
        }
    }
    Ok(rows)
}

/// The table's current version, as a dataset of its own: the handle's lock is not held while
/// the caller reads (lancedb's own calls, which the caller may make, take it again).
async fn current(t: &PondTable) -> Result<Dataset> {
    let wrapper = t.table.dataset().ok_or("not a Lance table")?;
    let ds = wrapper.get().await.map_err(|e| e.to_string())?;
    Ok((*ds).clone())
}

/// The kind lancedb reports for a scalar index, from the type of its recorded details.
fn scalar_kind(type_url: &str) -> Option<&'static str> {
    match type_url.rsplit('.').next()? {
        "InvertedIndexDetails" => Some("FTS"),
        "BTreeIndexDetails" => Some("BTREE"),
        "BitmapIndexDetails" => Some("BITMAP"),
        "LabelListIndexDetails" => Some("LABEL_LIST"),
        _ => None,
    }
}
