package apitype

import (
	"encoding/json"
	"reflect"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/pondhq/pond/session/view"
)

// TestEventPayloads: every event type decodes to its typed payload, and each payload is
// written as the events always were (they were maps, whose keys JSON sorts).
func TestEventPayloads(t *testing.T) {
	tally := view.Tally{Sessions: 1, Messages: 2, Parts: 3}
	started := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	tests := []struct {
		typ  string
		data any
		old  any // the payload as written before it was typed
	}{
		{EventReset, view.Reset{Reason: "r", Since: "e:1"}, map[string]string{"reason": "r", "since": "e:1"}},
		{EventSyncStarted, view.SyncStarted{Adapters: []string{"codex-cli"}, DryRun: true}, map[string]any{"adapters": []string{"codex-cli"}, "dry_run": true}},
		{EventSyncProgress, view.SyncProgress{Adapter: "codex-cli", Done: 1, Total: 2}, nil},
		{EventSyncFinished, view.SyncFinished{Outcome: "ok", Inserted: tally}, map[string]any{"outcome": "ok", "inserted": tally, "dry_run": false}},
		{EventCaptured, view.Captured{Source: "sync", Inserted: tally}, map[string]any{"source": "sync", "inserted": tally}},
		{EventError, view.Failed{During: "sync", Error: "e"}, map[string]string{"during": "sync", "error": "e"}},
		{EventConsent, view.ConsentChanged{Capture: "granted"}, map[string]string{"capture": "granted"}},
		{EventAdapters, view.AdaptersChanged{Action: "enable", Adapters: []string{"pi-coding-agent"}}, map[string]any{"action": "enable", "adapters": []string{"pi-coding-agent"}}},
		{EventModel, view.ModelChanged{Action: "enable", Enabled: true, Model: "m@r"}, map[string]any{"action": "enable", "enabled": true, "model": "m@r"}},
		{EventUpkeepStarted, view.UpkeepStarted{Trigger: "auto", Steps: []view.Step{view.StepEmbed}}, map[string]any{"trigger": "auto", "steps": []view.Step{view.StepEmbed}}},
		{EventUpkeepProgress, view.UpkeepProgress{Step: view.StepEmbed, Done: 1, Total: 2}, nil},
		{EventUpkeepFinished, view.Upkeep{Trigger: "auto", StartedAt: started, Did: []string{"nothing needed doing"}}, nil},
	}
	for _, tt := range tests {
		t.Run(tt.typ, func(t *testing.T) {
			raw, _ := json.Marshal(tt.data)
			if tt.old != nil {
				if old, _ := json.Marshal(tt.old); string(raw) != string(old) {
					t.Errorf("payload %s, was %s", raw, old)
				}
			}
			got, err := Event{Type: tt.typ, Data: raw}.Payload()
			if err != nil {
				t.Fatal(err)
			}
			if got == nil {
				t.Fatal("no payload type")
			}
			if diff := cmp.Diff(tt.data, deref(got)); diff != "" {
				t.Errorf("decoded payload (-want +got):\n%s", diff)
			}
		})
	}
	if p, err := (Event{Type: EventHello}).Payload(); p != nil || err != nil {
		t.Errorf("hello payload %v, %v; want none", p, err)
	}
}

// deref is the value a payload pointer points at.
func deref(p any) any { return reflect.ValueOf(p).Elem().Interface() }
