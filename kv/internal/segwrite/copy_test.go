package segwrite

import (
	"bytes"
	"testing"

	"github.com/kvenc/kvenc/blockenc"
	"github.com/kvenc/kvenc/kv/internal/rangedel"
	"github.com/kvenc/kvenc/kv/internal/segment"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestFinal(t *testing.T) {
	settings := []byte{1, 2, 3}
	final := segment.Meta{Cells: 10, Keys: 10, Settings: settings}
	assert.True(t, Final(segment.New(final), settings))
	for name, change := range map[string]func(m *segment.Meta){
		"empty":           func(m *segment.Meta) { m.Cells, m.Keys = 0, 0 },
		"versions":        func(m *segment.Meta) { m.Keys = 9 },
		"tombstone":       func(m *segment.Meta) { m.Tombstones = 1 },
		"range tombstone": func(m *segment.Meta) { m.Dels = []rangedel.Tombstone{{Start: []byte("a"), End: []byte("b"), Seq: 1}} },
		"settings":        func(m *segment.Meta) { m.Settings = []byte{1, 2, 4} },
	} {
		m := final
		change(&m)
		assert.False(t, Final(segment.New(m), settings), name)
	}
}

func TestRunsDict(t *testing.T) {
	settings := []byte{1}
	d, err := blockenc.NewDict(bytes.Repeat([]byte("dictionary "), 200))
	require.NoError(t, err)
	seg := func(bytes uint64, final bool, d *blockenc.Dict) *segment.Segment {
		m := segment.Meta{Cells: 2, Keys: 2, Bytes: bytes, Settings: settings}
		if !final {
			m.Keys = 1
		}
		g := segment.New(m)
		g.Parts = []segment.DictPart{{Dict: d}}
		return g
	}
	assert.Same(t, d, RunsDict([]*segment.Segment{seg(100, true, d), seg(100, false, nil)}, settings), "half the bytes")
	assert.Nil(t, RunsDict([]*segment.Segment{seg(99, true, d), seg(100, false, nil)}, settings), "less than half")
	assert.Nil(t, RunsDict([]*segment.Segment{seg(300, false, d), seg(100, true, nil)}, settings), "the large one is not final")
	two := seg(300, true, d)
	two.Parts = append(two.Parts, segment.DictPart{First: 1})
	assert.Nil(t, RunsDict([]*segment.Segment{two}, settings), "two parts")
}

func TestSameDict(t *testing.T) {
	raw := bytes.Repeat([]byte("dictionary "), 200)
	a, err := blockenc.NewDict(raw)
	require.NoError(t, err)
	b, err := blockenc.NewDict(bytes.Clone(raw))
	require.NoError(t, err)
	c, err := blockenc.NewDict(append(bytes.Clone(raw), 'x'))
	require.NoError(t, err)
	assert.True(t, sameDict(nil, nil))
	assert.True(t, sameDict(a, b), "the same bytes")
	assert.False(t, sameDict(a, c))
	assert.False(t, sameDict(a, nil))
	assert.False(t, sameDict(nil, a))
}
