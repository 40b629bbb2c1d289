// Package itertest checks an ordered key/value iterator that moves both
// ways against the sorted pairs it should show. It serves the tests of kv
// and the fuzz targets.
package itertest

import (
	"fmt"
	"sort"

	"github.com/stretchr/testify/require"
)

// Iter is the iterator under test: kv.Iterator's moves.
type Iter interface {
	First() bool
	Last() bool
	SeekGE(key []byte) bool
	SeekLT(key []byte) bool
	Next() bool
	Prev() bool
	Valid() bool
	Key() []byte
	Value() []byte
	Err() error
}

// Walk makes the moves prog spells, two bytes each (the move, then the
// key byte of a seek, turned into a key by key), on it and on a cursor over
// want (the pairs it shows in ascending key order within its bounds), and
// requires the same answer after every move; what names the walk in
// failures. After a move off one end,
// the step the other way goes to that end's first (Next) or last (Prev)
// pair; a further step the same way stays off.
func Walk(t require.TestingT, it Iter, want [][2]string, prog []byte, key func(b byte) []byte, what string) {
	if h, ok := t.(interface{ Helper() }); ok {
		h.Helper()
	}
	pos, valid, back, positioned := 0, false, false, false
	geq := func(k []byte) int {
		return sort.Search(len(want), func(i int) bool { return want[i][0] >= string(k) })
	}
	var moves []string
	for len(prog) >= 2 {
		op, kb := prog[0], prog[1]
		prog = prog[2:]
		var got bool
		switch op % 6 {
		case 0:
			moves = append(moves, "First")
			got = it.First()
			pos, back = 0, false
			valid, positioned = len(want) > 0, true
		case 1:
			moves = append(moves, "Last")
			got = it.Last()
			pos, back = len(want)-1, true
			valid, positioned = len(want) > 0, true
		case 2:
			k := key(kb)
			moves = append(moves, fmt.Sprintf("SeekGE(%q)", k))
			got = it.SeekGE(k)
			pos, back, positioned = geq(k), false, true
			valid = pos < len(want)
		case 3:
			k := key(kb)
			moves = append(moves, fmt.Sprintf("SeekLT(%q)", k))
			got = it.SeekLT(k)
			pos, back, positioned = geq(k)-1, true, true
			valid = pos >= 0
		case 4:
			moves = append(moves, "Next")
			got = it.Next()
			switch {
			case valid:
				pos++
				valid, back = pos < len(want), false
			case back && positioned:
				pos, valid, back = 0, len(want) > 0, false
			}
		default:
			moves = append(moves, "Prev")
			got = it.Prev()
			switch {
			case valid:
				pos--
				valid, back = pos >= 0, true
			case !back && positioned:
				pos, valid, back = len(want)-1, len(want) > 0, true
			}
		}
		require.NoError(t, it.Err(), "%s: after %v", what, moves)
		var wantKV, gotKV [2]string
		if valid {
			wantKV = want[pos]
		}
		if got {
			gotKV = [2]string{string(it.Key()), string(it.Value())}
		}
		require.Equal(t, []any{valid, wantKV}, []any{got, gotKV}, "%s: after %v", what, moves)
		require.Equal(t, got, it.Valid(), "%s: Valid after %v", what, moves)
	}
}
