package ycsbbench

import (
	"testing"
	"time"

	"github.com/kvenc/kvenc/bench/internal/quiet"
	"github.com/pingcap/go-ycsb/pkg/prop"
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

var testConfig = Config{Cache: 1 << 20}

func TestRunAllWorkloads(t *testing.T) {
	gs := []int{1, 3}
	o := Options{Records: 300, Ops: 200, Goroutines: gs, Config: testConfig, SyncRecords: 40}
	for _, e := range Engines() {
		res, err := Run(e, t.TempDir(), o, func(string) {})
		require.NoError(t, err, e.Name)
		require.Len(t, res, len(gs)*(2+len(Workloads)), e.Name)
		for i, r := range res {
			perG := 1 + len(Workloads) // the load and the workloads at each count, then the durable loads
			g := gs[min(i/perG, len(gs)-1)]
			if i >= len(gs)*perG {
				g = gs[i-len(gs)*perG]
			}
			assert.Equal(t, g, r.Goroutines, "%s: %+v", e.Name, r)
			want, ops := 200, []Op{}
			switch r.Workload {
			case LoadPhase:
				want, ops = 300, []Op{OpInsert}
			case SyncLoadPhase:
				want, ops = 40, []Op{OpInsert}
			case "A", "B":
				ops = []Op{OpRead, OpUpdate}
			case "C":
				ops = []Op{OpRead}
			case "E":
				want = 20
			case "F":
				ops = []Op{OpRead, OpReadModifyWrite}
			}
			assert.Equal(t, want, r.Ops, "%s: %+v", e.Name, r)
			assert.Greater(t, r.OpsPerSec, 0.0, "%s: %+v", e.Name, r)
			assert.GreaterOrEqual(t, r.P99, r.P50, "%s: %+v", e.Name, r)
			assert.Positive(t, r.P50, "%s: %+v", e.Name, r)
			assert.LessOrEqual(t, r.NotFound, r.Ops/10, "%s: %+v", e.Name, r)
			n := 0
			for _, b := range r.ByOp {
				n += b.Ops
				assert.GreaterOrEqual(t, b.P99, b.P50, "%s: %+v", e.Name, r)
			}
			assert.Equal(t, r.Ops, n, "%s: the kinds add up: %+v", e.Name, r)
			if r.Workload == "E" {
				assert.Equal(t, OpScan, r.ByOp[len(r.ByOp)-1].Op, "%s: %+v", e.Name, r)
				continue
			}
			var got []Op
			for _, b := range r.ByOp {
				got = append(got, b.Op)
			}
			if r.Ops >= 100 { // 5% updates in B: at least one in 100 ops
				assert.Equal(t, ops, got, "%s %s: kinds", e.Name, r.Workload)
			}
		}
	}
}

// TestClientsKeys checks that clients insert distinct keys: a load from 3
// clients stores every record, and inserts from 3 clients add as many
// records as there were inserts.
func TestClientsKeys(t *testing.T) {
	for _, e := range Engines() {
		err := quiet.Stdout(func() error {
			return withStore(e, t.TempDir(), testConfig, func(d db) error {
				r, err := load(e.Name, LoadPhase, d, 500, 3)
				require.NoError(t, err)
				require.Equal(t, 500, r.Ops)
				assert.Equal(t, 500, count(t, d.s), "%s: records after the load", e.Name)
				inserts := Workload{Name: "I", Props: map[string]string{prop.InsertProportion: "1", prop.RequestDistribution: "zipfian"}, OpsDiv: 1}
				r, err = transactions(e.Name, d, inserts, 500, 100, 3)
				require.NoError(t, err)
				require.Equal(t, []OpResult{{Op: OpInsert, Ops: 100, P50: r.ByOp[0].P50, P99: r.ByOp[0].P99}}, r.ByOp)
				assert.Equal(t, 600, count(t, d.s), "%s: records after the inserts", e.Name)
				return nil
			})
		})
		require.NoError(t, err)
	}
}

func count(t *testing.T, s Store) int {
	n := 0
	require.NoError(t, s.Scan(nil, 1<<30, func(_, _ []byte) error { n++; return nil }))
	return n
}

func TestPuts(t *testing.T) {
	for _, e := range Engines() {
		for _, sync := range []bool{false, true} {
			c := testConfig
			c.Sync = sync
			rs, err := Puts(e, t.TempDir(), c, []int{1, 4}, 20*time.Millisecond)
			require.NoError(t, err, e.Name)
			require.Len(t, rs, 2)
			for i, r := range rs {
				assert.Equal(t, PutsResult{Engine: e.Name, Sync: sync, Goroutines: []int{1, 4}[i], Puts: r.Puts, OpsPerSec: r.OpsPerSec, WALWrites: r.WALWrites}, r)
				if e.Name == KvencName || e.Name == KvencBufferedName {
					assert.Positive(t, r.WALWrites, "%+v", r)
					assert.LessOrEqual(t, r.WALWrites, int64(r.Puts), "at most one WAL write per Put: %+v", r)
				}
				assert.Positive(t, r.Puts, "%+v", r)
				assert.Positive(t, r.OpsPerSec, "%+v", r)
			}
		}
	}
}
