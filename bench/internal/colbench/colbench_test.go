package colbench

import (
	"bytes"
	"fmt"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

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
	require.NoError(t, err)
	require.Len(t, enc, len(cols), "results for columns")
	for i, e := range enc {
		r := e.Result()
		assert.Equal(t, cols[i].Name, r.Column, "%+v", r)
		assert.Equal(t, len(cols[i].Cells), r.Cells, "%+v", r)
		assert.GreaterOrEqual(t, r.Blocks, 1, "%+v", r)
		assert.Equal(t, len(Blocks(cols[i].Cells)), r.Blocks, "%+v", r)
		for s, b := range r.Bytes {
			assert.Positive(t, b, "%s %s: bytes", r.Column, Subjects[s])
		}
		for s, blocks := range e.Kvenc {
			assert.Len(t, blocks, r.Blocks, "%s %s: blocks", r.Column, Subjects[s])
		}
		assert.Len(t, e.Targets, NumTargets, "%s: targets", r.Column)
	}
	return enc
}

func TestColumnsSynthetic(t *testing.T) { check(t, synthetic(3000)) }

func TestTimers(t *testing.T) {
	enc := check(t, synthetic(1000))
	require.NoError(t, measure.SetBenchtime("2x"))
	for _, e := range []*Encoded{enc[0], enc[4]} { // one block, two blocks
		timers := e.Timers()
		// Every op of the kvenc subjects, Pebble's warm ops once and its
		// cold ops per compression.
		require.Len(t, timers, 4*len(e.Kvenc)+2+2*len(e.Pebble), "timers")
		seen := map[[2]int]bool{}
		for _, tm := range timers {
			key := [2]int{tm.Subject, int(tm.Op)}
			assert.False(t, seen[key], "%s %s timed twice", Subjects[tm.Subject], OpNames[tm.Op])
			seen[key] = true
			r := measure.Run(tm.Fn)
			assert.NotZero(t, r.N, "%s %s %s: %+v", e.Column, Subjects[tm.Subject], OpNames[tm.Op], r)
			assert.Greater(t, r.NsPerOp, 0.0, "%s %s %s: %+v", e.Column, Subjects[tm.Subject], OpNames[tm.Op], r)
		}
	}
}

func TestTargetsAreInTheirBlocks(t *testing.T) {
	col := synthetic(5000)[4]
	enc := check(t, []Column{col})[0]
	blks := Blocks(col.Cells)
	for i, tg := range enc.Targets {
		b := blks[tg.Block]
		require.True(t, bytes.Compare(tg.Key, b[0].Key) >= 0 && bytes.Compare(tg.Key, b[len(b)-1].Key) <= 0,
			"target %d (%x) is not in block %d", i, tg.Key, tg.Block)
	}
}

func TestBlocksCoverCells(t *testing.T) {
	cells := synthetic(5000)[4].Cells
	blks, n := Blocks(cells), 0
	for _, b := range blks {
		n += len(b)
	}
	assert.Equal(t, len(cells), n, "cells in blocks")
	assert.GreaterOrEqual(t, len(blks), 2, "blocks")
}

// TestColumnsLineitem needs dbgen (slow under -race; the Makefile runs
// *Lineitem* tests without it).
func TestColumnsLineitem(t *testing.T) {
	if israce.Enabled || testing.Short() {
		t.Skip("dbgen is slow under -race")
	}
	set, err := dataset.LineitemRows(1000)
	require.NoError(t, err)
	cols := LineitemColumns(set, 2000)
	for _, c := range cols {
		require.Len(t, c.Cells, 2000, c.Name)
	}
	if v := string(cols[3].Cells[0].Value); assert.Len(t, v, 10, "shipdate %q", v) {
		assert.Equal(t, byte('-'), v[4], "shipdate %q", v)
	}
	check(t, cols)
}
