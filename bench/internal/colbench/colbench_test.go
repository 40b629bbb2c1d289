package colbench

import (
	"bytes"
	"fmt"
	"testing"

	"github.com/kvenc/kvenc/bench/internal/dataset"
	"github.com/kvenc/kvenc/bench/internal/israce"
	"github.com/kvenc/kvenc/bench/internal/measure"
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

func check(t *testing.T, cols []Column) []*Encoded {
	t.Helper()
	enc, err := Encode(cols)
	if err != nil {
		t.Fatal(err)
	}
	if len(enc) != len(cols) {
		t.Fatalf("%d results for %d columns", len(enc), len(cols))
	}
	for i, e := range enc {
		r := e.Result()
		if r.Column != cols[i].Name || r.Cells != len(cols[i].Cells) || r.Blocks < 1 || r.Blocks != len(Blocks(cols[i].Cells)) {
			t.Errorf("%+v", r)
		}
		for s, b := range r.Bytes {
			if b <= 0 {
				t.Errorf("%s %s: %d bytes", r.Column, Subjects[s], b)
			}
		}
		for s, blocks := range e.Kvenc {
			if len(blocks) != r.Blocks {
				t.Errorf("%s %s: %d blocks, want %d", r.Column, Subjects[s], len(blocks), r.Blocks)
			}
		}
		if len(e.Targets) != NumTargets {
			t.Errorf("%s: %d targets", r.Column, len(e.Targets))
		}
	}
	return enc
}

func TestColumnsSynthetic(t *testing.T) { check(t, synthetic(3000)) }

func TestTimers(t *testing.T) {
	enc := check(t, synthetic(1000))
	if err := measure.SetBenchtime("2x"); err != nil {
		t.Fatal(err)
	}
	for _, e := range []*Encoded{enc[0], enc[4]} { // one block, two blocks
		timers := e.Timers()
		// Every op of the kvenc subjects, Pebble's warm ops once and its
		// cold ops per compression.
		if want := 4*len(e.Kvenc) + 2 + 2*len(e.Pebble); len(timers) != want {
			t.Fatalf("%d timers, want %d", len(timers), want)
		}
		seen := map[[2]int]bool{}
		for _, tm := range timers {
			key := [2]int{tm.Subject, int(tm.Op)}
			if seen[key] {
				t.Errorf("%s %s timed twice", Subjects[tm.Subject], OpNames[tm.Op])
			}
			seen[key] = true
			if r := measure.Run(tm.Fn); r.N == 0 || !(r.NsPerOp > 0) {
				t.Errorf("%s %s %s: %+v", e.Column, Subjects[tm.Subject], OpNames[tm.Op], r)
			}
		}
	}
}

func TestTargetsAreInTheirBlocks(t *testing.T) {
	col := synthetic(5000)[4]
	enc := check(t, []Column{col})[0]
	blks := Blocks(col.Cells)
	for i, tg := range enc.Targets {
		b := blks[tg.Block]
		if bytes.Compare(tg.Key, b[0].Key) < 0 || bytes.Compare(tg.Key, b[len(b)-1].Key) > 0 {
			t.Fatalf("target %d (%x) is not in block %d", i, tg.Key, tg.Block)
		}
	}
}

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
