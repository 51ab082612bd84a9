package docpos

import "testing"

func TestLocate(t *testing.T) {
	doc := []byte("seed = \"x\"\n\n[[case]]\nname = \"a\"\n  [case.want]\n  decison = \"deny\"\n[[case]]\nname = 'b'\ninput = { toolName = \"bash\" }\n")
	lines := NewLines(doc)
	locs, empty := Locate(doc, lines)
	if empty != -1 {
		t.Errorf("emptyKey = %d", empty)
	}
	for path, want := range map[string]Loc{
		"seed":                   {1, 1, 1, 8},
		"case[0]":                {0, 0, 3, 1}, // an element: its header
		"case[0].want.decison":   {6, 3, 6, 13},
		"case[1].name":           {8, 1, 8, 8},
		"case[1].input.toolName": {9, 11, 9, 22},
	} {
		if got := locs[path]; got == nil || *got != want {
			t.Errorf("%s: %+v, want %+v", path, got, want)
		}
	}
	if n, l, o := lines.Len(), lines.LineLen(6), lines.Offset(6, 3); n != 10 || l != 18 || string(doc[o:o+7]) != "decison" {
		t.Errorf("Len %d, LineLen(6) %d, Offset(6, 3) %d", n, l, o)
	}
	if l, c := lines.Pos(len(doc) + 5); l != 10 || c != 1 {
		t.Errorf("Pos past the end: %d:%d", l, c)
	}
}
