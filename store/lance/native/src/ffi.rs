//! Memory and error plumbing shared by every exported function.

use std::ffi::{CStr, CString};
use std::os::raw::c_char;
use std::panic::{catch_unwind, AssertUnwindSafe};

pub type Result<T> = std::result::Result<T, String>;

/// Runs `f`, turning an error or a panic into a C string for the caller. NULL means success.
pub fn guard<F: FnOnce() -> Result<()>>(f: F) -> *mut c_char {
    match catch_unwind(AssertUnwindSafe(f)) {
        Ok(Ok(())) => std::ptr::null_mut(),
        Ok(Err(msg)) => to_c(msg),
        Err(panic) => {
            let what = panic
                .downcast_ref::<String>()
                .map(|s| s.as_str())
                .or_else(|| panic.downcast_ref::<&str>().copied())
                .unwrap_or("unknown panic");
            to_c(format!("pond-native panicked: {what}"))
        }
    }
}

fn to_c(s: String) -> *mut c_char {
    // Interior NULs cannot cross as a C string; they never carry meaning in our messages.
    CString::new(s.replace('\0', " ")).unwrap().into_raw()
}

/// Borrows a C string argument; NULL is an error naming the argument.
pub fn arg_str<'a>(p: *const c_char, name: &str) -> Result<&'a str> {
    if p.is_null() {
        return Err(format!("{name} is null"));
    }
    unsafe { CStr::from_ptr(p) }
        .to_str()
        .map_err(|e| format!("{name} is not UTF-8: {e}"))
}

/// Like `arg_str`, but NULL or empty means "absent".
pub fn opt_str(p: *const c_char) -> Result<Option<String>> {
    if p.is_null() {
        return Ok(None);
    }
    let s = arg_str(p, "string")?;
    Ok(if s.is_empty() { None } else { Some(s.to_string()) })
}

pub fn arg_bytes<'a>(p: *const u8, len: usize, name: &str) -> Result<&'a [u8]> {
    if p.is_null() {
        return Err(format!("{name} is null"));
    }
    Ok(unsafe { std::slice::from_raw_parts(p, len) })
}

pub fn write_string(out: *mut *mut c_char, s: String) -> Result<()> {
    if out.is_null() {
        return Err("output pointer is null".into());
    }
    unsafe { *out = to_c(s) };
    Ok(())
}

/// Hands a byte buffer to the caller, who frees it with `pond_bytes_free`.
pub fn write_bytes(out: *mut *mut u8, out_len: *mut usize, bytes: Vec<u8>) -> Result<()> {
    if out.is_null() || out_len.is_null() {
        return Err("output pointer is null".into());
    }
    let boxed = bytes.into_boxed_slice();
    let len = boxed.len();
    let ptr = Box::into_raw(boxed) as *mut u8;
    unsafe {
        *out = ptr;
        *out_len = len;
    }
    Ok(())
}

#[no_mangle]
pub extern "C" fn pond_string_free(s: *mut c_char) {
    if !s.is_null() {
        unsafe { drop(CString::from_raw(s)) };
    }
}

#[no_mangle]
pub extern "C" fn pond_bytes_free(p: *mut u8, len: usize) {
    if !p.is_null() {
        unsafe { drop(Box::from_raw(std::ptr::slice_from_raw_parts_mut(p, len))) };
    }
}
