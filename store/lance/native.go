package lance

/*
#cgo LDFLAGS: -l:libpond_native.a -lstdc++ -lm -ldl -lpthread -lrt -lgcc_s
#include <stdlib.h>
#include "pond_native.h"
*/
import "C"

import (
	"encoding/json"
	"errors"
	"unsafe"
)

// nativeErr turns an error string returned by pond-native into a Go error and frees it.
func nativeErr(msg *C.char) error {
	if msg == nil {
		return nil
	}
	defer C.pond_string_free(msg)
	return errors.New(C.GoString(msg))
}

// takeString copies and frees a string pond-native handed out.
func takeString(s *C.char) string {
	if s == nil {
		return ""
	}
	defer C.pond_string_free(s)
	return C.GoString(s)
}

// cString allocates a C copy of s; free it with freeCString.
func cString(s string) *C.char { return C.CString(s) }

func freeCString(s *C.char) { C.free(unsafe.Pointer(s)) }

// callJSON runs f with spec marshalled to a C string.
func callJSON(spec any, f func(*C.char) *C.char) error {
	b, err := json.Marshal(spec)
	if err != nil {
		return err
	}
	cs := C.CString(string(b))
	defer C.free(unsafe.Pointer(cs))
	return nativeErr(f(cs))
}

// NativeVersions reports what the native library was built from: pond_native, lancedb, lance,
// tokenizers.
func NativeVersions() (map[string]string, error) {
	var out *C.char
	if err := nativeErr(C.pond_native_versions(&out)); err != nil {
		return nil, err
	}
	v := map[string]string{}
	if err := json.Unmarshal([]byte(takeString(out)), &v); err != nil {
		return nil, err
	}
	return v, nil
}
