//! Hugging Face tokenizers (`tokenizer.json`: SentencePiece-Unigram, WordPiece, BPE) for the
//! embedding model. Batches come back padded to their longest row, as int64 tensors ready for
//! ONNX Runtime.

use std::os::raw::c_char;

use tokenizers::{
    PaddingDirection, PaddingParams, PaddingStrategy, Tokenizer, TruncationDirection,
    TruncationParams, TruncationStrategy,
};

use crate::ffi::{arg_bytes, arg_str, guard, Result};

pub struct PondTokenizer {
    tok: Tokenizer,
}

/// One encoded batch: `rows` × `width` matrices, row-major. Freed with `pond_encoding_free`.
#[repr(C)]
pub struct PondEncoding {
    pub rows: usize,
    pub width: usize,
    pub ids: *mut i64,
    pub attention_mask: *mut i64,
    pub type_ids: *mut i64,
    /// 1 where the input was cut at `max_length`.
    pub truncated: *mut u8,
}

/// Loads `tokenizer.json`. `max_length` > 0 cuts every input at that many tokens (special
/// tokens included); 0 keeps the file's own truncation setting.
#[no_mangle]
pub extern "C" fn pond_tokenizer_load(
    path: *const c_char,
    max_length: usize,
    out: *mut *mut PondTokenizer,
) -> *mut c_char {
    guard(|| {
        let path = arg_str(path, "tokenizer path")?;
        if out.is_null() {
            return Err("output pointer is null".into());
        }
        let mut tok = Tokenizer::from_file(path).map_err(|e| format!("load tokenizer {path}: {e}"))?;
        if max_length > 0 {
            tok.with_truncation(Some(TruncationParams {
                max_length,
                strategy: TruncationStrategy::LongestFirst,
                stride: 0,
                direction: TruncationDirection::Right,
            }))
            .map_err(|e| format!("set truncation: {e}"))?;
        }
        let padding = match tok.get_padding() {
            Some(p) => PaddingParams {
                strategy: PaddingStrategy::BatchLongest,
                ..p.clone()
            },
            None => {
                let (pad_id, pad_token) = pad_token(&tok);
                PaddingParams {
                    strategy: PaddingStrategy::BatchLongest,
                    direction: PaddingDirection::Right,
                    pad_to_multiple_of: None,
                    pad_id,
                    pad_type_id: 0,
                    pad_token,
                }
            }
        };
        tok.with_padding(Some(padding));
        unsafe { *out = Box::into_raw(Box::new(PondTokenizer { tok })) };
        Ok(())
    })
}

/// The padding token the model was trained with; padded positions are masked out, so the
/// choice only has to be a valid id.
fn pad_token(tok: &Tokenizer) -> (u32, String) {
    for name in ["<pad>", "[PAD]", "<|padding|>"] {
        if let Some(id) = tok.token_to_id(name) {
            return (id, name.to_string());
        }
    }
    (0, tok.id_to_token(0).unwrap_or_default())
}

#[no_mangle]
pub extern "C" fn pond_tokenizer_free(t: *mut PondTokenizer) {
    if !t.is_null() {
        unsafe { drop(Box::from_raw(t)) };
    }
}

/// Encodes `n` texts packed in `data`; text i is `data[offsets[i]..offsets[i+1]]` (UTF-8).
#[no_mangle]
pub extern "C" fn pond_tokenizer_encode(
    t: *mut PondTokenizer,
    data: *const u8,
    data_len: usize,
    offsets: *const usize,
    n: usize,
    add_special_tokens: bool,
    out: *mut *mut PondEncoding,
) -> *mut c_char {
    guard(|| {
        if t.is_null() || out.is_null() || (n > 0 && offsets.is_null()) {
            return Err("null argument".into());
        }
        let t = unsafe { &*t };
        let data = if data_len == 0 { &[][..] } else { arg_bytes(data, data_len, "data")? };
        let offsets = unsafe { std::slice::from_raw_parts(offsets, n + 1) };
        let mut texts = Vec::with_capacity(n);
        for i in 0..n {
            let (a, b) = (offsets[i], offsets[i + 1]);
            if a > b || b > data.len() {
                return Err(format!("text {i}: offsets {a}..{b} outside the {} data bytes", data.len()));
            }
            let s = std::str::from_utf8(&data[a..b]).map_err(|e| format!("text {i} is not UTF-8: {e}"))?;
            texts.push(s);
        }
        let encodings = t
            .tok
            .encode_batch(texts, add_special_tokens)
            .map_err(|e| format!("tokenize: {e}"))?;
        unsafe { *out = Box::into_raw(Box::new(flatten(&encodings)?)) };
        Ok(())
    })
}

fn flatten(encodings: &[tokenizers::Encoding]) -> Result<PondEncoding> {
    let rows = encodings.len();
    let width = encodings.iter().map(|e| e.len()).max().unwrap_or(0);
    let mut ids = Vec::with_capacity(rows * width);
    let mut mask = Vec::with_capacity(rows * width);
    let mut types = Vec::with_capacity(rows * width);
    let mut truncated = Vec::with_capacity(rows);
    for e in encodings {
        if e.len() != width {
            return Err("tokenizer did not pad the batch to one width".into());
        }
        ids.extend(e.get_ids().iter().map(|&v| v as i64));
        mask.extend(e.get_attention_mask().iter().map(|&v| v as i64));
        types.extend(e.get_type_ids().iter().map(|&v| v as i64));
        truncated.push(u8::from(!e.get_overflowing().is_empty()));
    }
    Ok(PondEncoding {
        rows,
        width,
        ids: leak(ids),
        attention_mask: leak(mask),
        type_ids: leak(types),
        truncated: leak(truncated),
    })
}

fn leak<T>(v: Vec<T>) -> *mut T {
    Box::into_raw(v.into_boxed_slice()) as *mut T
}

unsafe fn unleak<T>(p: *mut T, len: usize) {
    if !p.is_null() {
        drop(Box::from_raw(std::ptr::slice_from_raw_parts_mut(p, len)));
    }
}

#[no_mangle]
pub extern "C" fn pond_encoding_free(e: *mut PondEncoding) {
    if e.is_null() {
        return;
    }
    unsafe {
        let e = Box::from_raw(e);
        let cells = e.rows * e.width;
        unleak(e.ids, cells);
        unleak(e.attention_mask, cells);
        unleak(e.type_ids, cells);
        unleak(e.truncated, e.rows);
    }
}
