package ycsbbench

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestRecordRoundTrip(t *testing.T) {
	in := map[string][]byte{"field1": []byte("b"), "field0": []byte("a"), "f": nil}
	enc := encodeRecord(nil, in)
	out := map[string][]byte{}
	require.NoError(t, decodeRecord(out, enc, nil))
	require.Len(t, out, 3)
	require.Equal(t, []byte("b"), out["field1"])
	some := map[string][]byte{}
	if assert.NoError(t, decodeRecord(some, enc, []string{"field0"}), "fields") {
		assert.Len(t, some, 1, "fields")
	}
	assert.Error(t, decodeRecord(map[string][]byte{}, enc[:len(enc)-1], nil), "truncated record")
}

func TestRunAllWorkloads(t *testing.T) {
	for _, e := range Engines() {
		res, err := Run(e, t.TempDir(), Options{Records: 300, Ops: 200, Threads: 1}, func(string) {})
		require.NoError(t, err, e.Name)
		require.Len(t, res, 1+len(Workloads), e.Name)
		for _, r := range res {
			want := 200
			switch r.Workload {
			case "load":
				want = 300
			case "E":
				want = 20
			}
			assert.Equal(t, want, r.Ops, "%s: %+v", e.Name, r)
			assert.Greater(t, r.OpsPerSec, 0.0, "%s: %+v", e.Name, r)
			assert.GreaterOrEqual(t, r.P99, r.P50, "%s: %+v", e.Name, r)
			assert.Positive(t, r.P50, "%s: %+v", e.Name, r)
			assert.LessOrEqual(t, r.NotFound, r.Ops/10, "%s: %+v", e.Name, r)
		}
	}
}
