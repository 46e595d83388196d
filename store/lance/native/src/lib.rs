//! Pond's native module: the parts of Lance that lancedb-go v0.1.2 does not expose (full-text
//! search, merge-insert, optimize, schema evolution, filtered counts, index parameters, read
//! consistency, cache sizes, a disk cache for object stores, Arrow IPC result streams) and Hugging Face's tokenizer, behind a
//! small C ABI declared in `pond_native.h`.
//!
//! Conventions of every exported function: pointers in, results through out-pointers, and the
//! return value is NULL on success or an error message the caller frees with
//! `pond_string_free`. Panics never cross the boundary; they become error messages.

// lancedb-go's crate is linked into this library; its `simple_lancedb_*` C functions are what
// lancedb-go's Go package calls. Naming the crate keeps the linker from dropping it.
pub use lancedb_go;

mod diskcache;
mod ffi;
mod query;
mod runtime;
mod stats;
mod table;
mod tokenizer;

pub use ffi::*;
pub use query::*;
pub use stats::*;
pub use table::*;
pub use tokenizer::*;

use std::os::raw::c_char;

/// Versions of what this library was built from, as a JSON object.
#[no_mangle]
pub extern "C" fn pond_native_versions(out_json: *mut *mut c_char) -> *mut c_char {
    ffi::guard(|| {
        let v = serde_json::json!({
            "pond_native": env!("CARGO_PKG_VERSION"),
            "lancedb": "0.22.1",
            "lance": "0.37.0",
            "tokenizers": "0.22.2",
        });
        ffi::write_string(out_json, v.to_string())
    })
}
