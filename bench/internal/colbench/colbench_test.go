package colbench

import (
	"fmt"
	"testing"

	"github.com/kvenc/kvenc/bench/internal/dataset"
	"github.com/kvenc/kvenc/bench/internal/israce"
)

// synthetic builds lineitem-like columns without dbgen.
func synthetic(rows int) []Column {
	modes := []string{"AIR", "FOB", "MAIL", "RAIL", "REG AIR", "SHIP", "TRUCK"}
	instr := []string{"COLLECT COD", "DELIVER IN PERSON", "NONE", "TAKE BACK RETURN"}
	cols := make([]Column, len(ColumnNames))
	for c, name := range ColumnNames {
		cols[c].Name = name
		for i := 0; i < rows; i++ {
			ok, ln := int64(1+i/4*3), int64(1+i%4)
			v := [...]string{
				modes[i*7%len(modes)], string("ANR"[i%3]), instr[i*5%len(instr)],
				fmt.Sprintf("199%d-%02d-%02d", i%7, 1+i%12, 1+i%28),
				fmt.Sprintf("quickly regular deposits %d sleep", i*7919%100003),
			}[c]
			cols[c].Cells = append(cols[c].Cells, dataset.KV{Key: Key(name, ok, ln), Value: []byte(v), Seq: 1})
		}
	}
	return cols
}

func check(t *testing.T, cols []Column) {
	t.Helper()
	res, err := Measure(cols)
	if err != nil {
		t.Fatal(err)
	}
	if len(res) != len(cols) {
		t.Fatalf("%d results for %d columns", len(res), len(cols))
	}
	for i, r := range res {
		if r.Column != cols[i].Name || r.Cells != len(cols[i].Cells) || r.Blocks < 1 {
			t.Errorf("%+v", r)
		}
		for s, b := range r.Bytes {
			if b <= 0 {
				t.Errorf("%s %s: %d bytes", r.Column, Subjects[s], b)
			}
		}
	}
}

func TestColumnsSynthetic(t *testing.T) { check(t, synthetic(3000)) }

func TestBlocksCoverCells(t *testing.T) {
	cells := synthetic(5000)[4].Cells
	blks, n := Blocks(cells), 0
	for _, b := range blks {
		n += len(b)
	}
	if n != len(cells) || len(blks) < 2 {
		t.Errorf("%d blocks hold %d of %d cells", len(blks), n, len(cells))
	}
}

// TestColumnsLineitem needs dbgen (slow under -race; the Makefile runs
// *Lineitem* tests without it).
func TestColumnsLineitem(t *testing.T) {
	if israce.Enabled || testing.Short() {
		t.Skip("dbgen is slow under -race")
	}
	set, err := dataset.LineitemRows(1000)
	if err != nil {
		t.Fatal(err)
	}
	cols := LineitemColumns(set, 2000)
	for _, c := range cols {
		if len(c.Cells) != 2000 {
			t.Fatalf("%s: %d cells", c.Name, len(c.Cells))
		}
	}
	if v := string(cols[3].Cells[0].Value); len(v) != 10 || v[4] != '-' {
		t.Errorf("shipdate %q", v)
	}
	check(t, cols)
}
