package store

import (
	"reflect"
	"testing"

	"github.com/pondhq/pond/session/view"
)

// The rank table answers only the filters it holds columns for (the dates; the sub-agent flag
// comes from the plan). Every other filter of SearchFilters, including one added later, must
// send the search to the join with message_rows, or it would be ignored.
func TestRankFiltersRefuseWhatTheyDoNotHold(t *testing.T) {
	if _, ok := rankFilters(&plan{}); !ok {
		t.Fatal("a search without filters does not use the rank table")
	}
	held := map[string]bool{"FromDate": true, "ToDate": true}
	typ := reflect.TypeOf(view.SearchFilters{})
	for i := range typ.NumField() {
		var f view.SearchFilters
		field := reflect.ValueOf(&f).Elem().Field(i)
		if field.Kind() != reflect.String {
			t.Fatalf("SearchFilters.%s is a %s: teach this test to set it", typ.Field(i).Name, field.Kind())
		}
		field.SetString("2026-01-01")
		_, ok := rankFilters(&plan{req: view.SearchRequest{Filters: f}, from: f.FromDate, to: f.ToDate})
		if ok != held[typ.Field(i).Name] {
			t.Errorf("with SearchFilters.%s set, rankFilters says %v", typ.Field(i).Name, ok)
		}
	}
}
