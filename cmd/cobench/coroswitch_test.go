//go:build unix

package main

import (
	"strings"
	"testing"
)

// TestCoroMicros: the coroswitch child measures exactly the stackful rows
// of the switch and create groups and their iter.Pull anchors.
func TestCoroMicros(t *testing.T) {
	var stackful, anchors int
	for _, m := range coroMicros() {
		switch {
		case m.group != "switch" && m.group != "create":
			t.Errorf("%s: group %s", m.model, m.group)
		case strings.HasPrefix(m.model, "stackful"):
			stackful++
		case strings.HasPrefix(m.model, "iter.Pull"):
			anchors++
		default:
			t.Errorf("unexpected row %s", m.model)
		}
	}
	if stackful < 2 || anchors != 2 {
		t.Errorf("%d stackful rows and %d anchors, want at least 2 and 2", stackful, anchors)
	}
}

// TestInsertCoroRows: a coroswitch row goes right after the last row of its
// measure.
func TestInsertCoroRows(t *testing.T) {
	rows := []Row{{Measure: "a", Model: "1"}, {Measure: "a", Model: "2"}, {Measure: "b", Model: "3"}}
	got := insertCoroRows(rows, []Row{{Measure: "a", Model: "x"}, {Measure: "b", Model: "y"}})
	var order []string
	for _, r := range got {
		order = append(order, r.Model)
	}
	if s := strings.Join(order, ","); s != "1,2,x,3,y" {
		t.Errorf("order %s, want 1,2,x,3,y", s)
	}
}
