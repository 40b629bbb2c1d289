package seekbench

import (
	"flag"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/kvenc/kvenc/bench/internal/dataset"
	"github.com/kvenc/kvenc/bench/internal/measure"
	"github.com/kvenc/kvenc/blockenc"
)

func TestSubjects(t *testing.T) {
	kvs, err := dataset.KeySet("user", 8<<10, nil)
	require.NoError(t, err)
	subs, err := Subjects(kvs)
	require.NoError(t, err)
	require.Len(t, subs, len(blockenc.Encodings())+2)
	require.Equal(t, PebbleName, subs[len(subs)-1].Name)
	require.Equal(t, BadgerName, subs[len(subs)-2].Name)
	require.NoError(t, measure.SetBenchtime("2x"))
	for _, s := range subs {
		assert.Equal(t, len(kvs), s.Cells, s.Name)
		assert.GreaterOrEqual(t, s.Bytes, len(kvs)*8, "%s: bytes", s.Name)
		fns := []func(*testing.B){s.SeekRandom, s.SeekAscending, s.Scan}
		if strings.HasPrefix(s.Name, "kvenc-") {
			require.NotNil(t, s.ScanCell, s.Name)
			fns = append(fns, s.ScanCell)
		} else {
			assert.Nil(t, s.ScanCell, s.Name)
		}
		if s.Name != BadgerName {
			require.NotNil(t, s.SeekLTRandom, s.Name)
			require.NotNil(t, s.ScanReverse, s.Name)
			fns = append(fns, s.SeekLTRandom, s.ScanReverse)
		} else {
			assert.Nil(t, s.SeekLTRandom, s.Name)
			assert.Nil(t, s.ScanReverse, s.Name)
		}
		for _, fn := range fns {
			r := measure.Run(fn)
			assert.NotZero(t, r.N, "%s: %+v", s.Name, r)
			assert.Greater(t, r.NsPerOp, 0.0, "%s: %+v", s.Name, r)
		}
	}
}

func TestMismatchNamesTheCell(t *testing.T) {
	err := mismatch("x", "SeekGE", 3, []byte{1}, []byte{2})
	assert.ErrorContains(t, err, "x: SeekGE at cell 3: got 01, want 02")
}

// BenchmarkSubjects runs every subject's measurements on a key set
// (-keyset, default user) as Go benchmarks, for profiles and instruction
// counts of one operation (kvbench seek reports the medians).
func BenchmarkSubjects(b *testing.B) {
	kvs, err := dataset.KeySet(*keySet, 32<<10, nil)
	require.NoError(b, err)
	subs, err := Subjects(kvs)
	require.NoError(b, err)
	for _, s := range subs {
		for _, op := range []struct {
			name string
			fn   func(*testing.B)
		}{{"seekrandom", s.SeekRandom}, {"seekasc", s.SeekAscending}, {"scan", s.Scan}, {"scancell", s.ScanCell},
			{"seekltrandom", s.SeekLTRandom}, {"reversescan", s.ScanReverse}} {
			if op.fn != nil {
				b.Run("subject="+s.Name+"/op="+op.name, op.fn)
			}
		}
	}
}

var keySet = flag.String("keyset", "user", "BenchmarkSubjects: the key set (user, random)")
