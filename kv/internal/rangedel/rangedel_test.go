package rangedel

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

func rd(start, end string, seq uint64) Tombstone {
	return Tombstone{Start: []byte(start), End: []byte(end), Seq: seq}
}

func TestFragmentDels(t *testing.T) {
	r := New([]Tombstone{rd("b", "f", 5), rd("d", "h", 9), rd("d", "h", 3), rd("h", "k", 9), rd("m", "n", 2)})
	type frag struct {
		start, end string
		seqs       []uint64
	}
	var got []frag
	for _, f := range r.Frags {
		got = append(got, frag{string(f.Start), string(f.End), f.Seqs})
	}
	assert.Equal(t, []frag{
		{"b", "d", []uint64{5}},
		{"d", "f", []uint64{9, 5, 3}},
		{"f", "h", []uint64{9, 3}},
		{"h", "k", []uint64{9}},
		{"m", "n", []uint64{2}},
	}, got)
	for _, c := range []struct {
		key  string
		rp   uint64
		want uint64
	}{
		{"a", 100, 0}, {"b", 100, 5}, {"b", 4, 0}, {"c", 5, 5}, {"d", 100, 9}, {"d", 8, 5}, {"e", 4, 3},
		{"f", 8, 3}, {"g", 2, 0}, {"h", 9, 9}, {"j", 100, 9}, {"k", 100, 0}, {"l", 100, 0}, {"m", 2, 2}, {"n", 100, 0},
	} {
		assert.Equal(t, c.want, r.Cover([]byte(c.key), c.rp), "cover(%q, %d)", c.key, c.rp)
		d := NewCheck(r, c.rp)
		assert.Equal(t, c.want > 4, d.Hides([]byte(c.key), 4), "hides(%q, 4) at %d", c.key, c.rp)
	}
	// Every fragment, then back: the tombstones merge again where they
	// abut with the same seq.
	all := Defragment(r.Frags, func(int, uint64) bool { return true })
	assert.Equal(t, []Tombstone{rd("b", "f", 5), rd("d", "h", 3), rd("d", "k", 9), rd("m", "n", 2)}, all)
	var nilSet *Set
	assert.Equal(t, uint64(0), nilSet.Cover([]byte("a"), 10))
	assert.Nil(t, New(nil))
	assert.Nil(t, Union(nil, nil))
	assert.Same(t, r, Union(nil, r, nil))
}
