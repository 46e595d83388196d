//! Queries that stream their results as Arrow IPC in bounded batches: plain scans with a filter,
//! full-text search (BM25 over an inverted index, scanning rows the index has not caught up with)
//! and vector search, each with the filter pushed down.

use std::os::raw::c_char;

use arrow_ipc::writer::StreamWriter;
use lancedb::arrow::SendableRecordBatchStream;
use lancedb::index::scalar::{FullTextSearchQuery, MatchQuery, Operator};
use lancedb::query::{ExecutableQuery, QueryBase, QueryExecutionOptions, Select};
use serde::Deserialize;
use tokio_stream::StreamExt;

use crate::ffi::{arg_str, guard, write_bytes};
use crate::runtime::block_on;
use crate::table::PondTable;

/// A running query. Batches are produced on demand, so memory stays bounded by one batch.
pub struct PondStream {
    stream: SendableRecordBatchStream,
}

#[derive(Deserialize, Default)]
struct QuerySpec {
    columns: Option<Vec<String>>,
    filter: Option<String>,
    limit: Option<usize>,
    offset: Option<usize>,
    #[serde(default)]
    with_row_id: bool,
    /// Rows per batch handed back (default 1024).
    batch_rows: Option<u32>,
    fts: Option<FtsSpec>,
    vector: Option<VectorSpec>,
}

#[derive(Deserialize)]
struct FtsSpec {
    query: String,
    column: Option<String>,
    /// "or" (default) or "and": whether every term must match.
    operator: Option<String>,
}

#[derive(Deserialize)]
struct VectorSpec {
    column: String,
    vector: Vec<f32>,
    distance: Option<String>,
    nprobes: Option<usize>,
    refine_factor: Option<u32>,
    /// Exact search even when an index exists.
    #[serde(default)]
    exact: bool,
    /// Filter after the nearest-neighbour search instead of before it.
    #[serde(default)]
    postfilter: bool,
}

fn apply_base<Q: QueryBase>(mut q: Q, spec: &QuerySpec) -> Q {
    if let Some(cols) = &spec.columns {
        q = q.select(Select::columns(cols));
    }
    if let Some(f) = &spec.filter {
        if !f.is_empty() {
            q = q.only_if(f);
        }
    }
    if let Some(n) = spec.limit {
        q = q.limit(n);
    }
    if let Some(n) = spec.offset {
        q = q.offset(n);
    }
    if spec.with_row_id {
        q = q.with_row_id();
    }
    q
}

/// Starts a query described by a JSON spec; read it with `pond_stream_next`.
#[no_mangle]
pub extern "C" fn pond_table_query(
    t: *mut PondTable,
    spec_json: *const c_char,
    out: *mut *mut PondStream,
) -> *mut c_char {
    guard(|| {
        if t.is_null() || out.is_null() {
            return Err("null argument".into());
        }
        let t = unsafe { &*t };
        let spec: QuerySpec = serde_json::from_str(arg_str(spec_json, "query spec")?)
            .map_err(|e| format!("invalid query spec: {e}"))?;
        let mut options = QueryExecutionOptions::default();
        options.max_batch_length = spec.batch_rows.unwrap_or(1024).max(1);
        let stream = block_on(async {
            let mut q = apply_base(t.table.query(), &spec);
            if let Some(fts) = &spec.fts {
                let operator = match fts.operator.as_deref().unwrap_or("or") {
                    "or" => Operator::Or,
                    "and" => Operator::And,
                    other => {
                        return Err(format!("unknown full-text operator {other:?} (want or, and)"))
                    }
                };
                let m = MatchQuery::new(fts.query.clone())
                    .with_column(fts.column.clone())
                    .with_operator(operator);
                let mut fq = FullTextSearchQuery::new(String::new());
                fq.query = m.into();
                if let Some(n) = spec.limit {
                    fq = fq.limit(Some(n as i64));
                }
                q = q.full_text_search(fq);
            }
            match &spec.vector {
                None => q.execute_with_options(options).await.map_err(|e| e.to_string()),
                Some(v) => {
                    let mut vq = q
                        .nearest_to(v.vector.clone())
                        .map_err(|e| e.to_string())?
                        .column(&v.column)
                        .distance_type(crate::table::distance(&v.distance)?);
                    if let Some(n) = v.nprobes {
                        vq = vq.nprobes(n);
                    }
                    if let Some(n) = v.refine_factor {
                        vq = vq.refine_factor(n);
                    }
                    if v.exact {
                        vq = vq.bypass_vector_index();
                    }
                    if v.postfilter {
                        vq = vq.postfilter();
                    }
                    vq.execute_with_options(options).await.map_err(|e| e.to_string())
                }
            }
        })
        .map_err(|e| format!("query: {e}"))?;
        unsafe { *out = Box::into_raw(Box::new(PondStream { stream })) };
        Ok(())
    })
}

/// The next batch as a self-contained Arrow IPC stream (schema + one batch). At the end of the
/// results it hands back no buffer (`*out` NULL, `*out_len` 0).
#[no_mangle]
pub extern "C" fn pond_stream_next(
    s: *mut PondStream,
    out: *mut *mut u8,
    out_len: *mut usize,
) -> *mut c_char {
    guard(|| {
        if s.is_null() || out.is_null() || out_len.is_null() {
            return Err("null argument".into());
        }
        let s = unsafe { &mut *s };
        loop {
            match block_on(s.stream.next()) {
                None => {
                    unsafe {
                        *out = std::ptr::null_mut();
                        *out_len = 0;
                    }
                    return Ok(());
                }
                Some(Err(e)) => return Err(format!("read query results: {e}")),
                Some(Ok(batch)) if batch.num_rows() == 0 => continue,
                Some(Ok(batch)) => {
                    let mut buf = Vec::with_capacity(batch.get_array_memory_size() + 1024);
                    {
                        let mut w = StreamWriter::try_new(&mut buf, &batch.schema())
                            .map_err(|e| format!("encode results: {e}"))?;
                        w.write(&batch).map_err(|e| format!("encode results: {e}"))?;
                        w.finish().map_err(|e| format!("encode results: {e}"))?;
                    }
                    return write_bytes(out, out_len, buf);
                }
            }
        }
    })
}

#[no_mangle]
pub extern "C" fn pond_stream_close(s: *mut PondStream) {
    if !s.is_null() {
        unsafe { drop(Box::from_raw(s)) };
    }
}
