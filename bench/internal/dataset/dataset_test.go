package dataset

import (
	"bytes"
	"slices"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/kvenc/kvenc/bench/internal/israce"
)

func TestKeySetsSortedAndSized(t *testing.T) {
	rows := make([]Lineitem, 3000)
	for i := range rows {
		rows[i] = Lineitem{OrderKey: int64(1 + i/4), LineNumber: int64(1 + i%4)}
	}
	for _, name := range KeySets {
		kvs, err := KeySet(name, 32<<10, rows)
		require.NoError(t, err)
		raw := 0
		for i, kv := range kvs {
			raw += len(kv.Key) + len(kv.Value) + 8
			require.Len(t, kv.Value, 8, "%s: value %d", name, i)
			require.True(t, kv.Seq >= 1<<24 && kv.Seq < 1<<48, "%s: seq %d out of the 5..7-byte vlong range", name, kv.Seq)
			if i > 0 {
				require.Negative(t, bytes.Compare(kvs[i-1].Key, kv.Key), "%s: keys %d and %d not strictly ascending", name, i-1, i)
			}
		}
		assert.True(t, raw >= 32<<10 && raw <= 33<<10, "%s: %d cells hold %d raw bytes, want about 32 KiB", name, len(kvs), raw)
		again, err := KeySet(name, 32<<10, rows)
		require.NoError(t, err)
		assert.True(t, slices.EqualFunc(kvs, again, func(a, b KV) bool { return bytes.Equal(a.Key, b.Key) && a.Seq == b.Seq }),
			"%s: not deterministic", name)
	}
	_, err := KeySet("lineitem", 32<<10, rows[:10])
	assert.Error(t, err, "lineitem key set from 10 rows")
}

func TestTimeSeriesShapes(t *testing.T) {
	const n = 50_000
	for _, s := range TimeSeries(n) {
		require.Len(t, s.Values, n, s.Name)
	}
	ss := TimeSeries(n)
	assert.True(t, slices.IsSorted(ss[0].Values[:1000]), "timestamps not ascending")
	zeros := 0
	for _, v := range ss[3].Values {
		if v == 0 {
			zeros++
		}
	}
	assert.GreaterOrEqual(t, zeros, n*99/100, "sparse: zeros")
	assert.Less(t, zeros, n, "sparse: zeros")
	assert.Equal(t, ss[2].Values, TimeSeries(n)[2].Values, "gauge not deterministic")
}

// TestLineitem checks the row count of a small prefix and the first row
// against dbgen's own expected output. dbgen builds a 300 MB text pool first
// (about 10 s), so the test is skipped under -race and with -short.
func TestLineitem(t *testing.T) {
	if israce.Enabled || testing.Short() {
		t.Skip("dbgen set-up takes minutes under -race; make test runs this without -race")
	}
	set, err := LineitemRows(10)
	require.NoError(t, err)
	rows := set.Rows
	assert.Equal(t, "DELIVER IN PERSON|TRUCK|egular courts above the", string(set.Text(0)), "row 0 text")
	// dbgen's driver_test: "1|155190|7706|1|17|21168.23|0.04|0.02|N|O|1996-03-13|1996-02-12|1996-03-22|..."
	got := rows[0]
	want := Lineitem{OrderKey: 1, PartKey: 155190, SuppKey: 7706, LineNumber: 1, Quantity: 17,
		ExtendedPrice: 2116823, Discount: 4, Tax: 2, ShipDate: days("1996-03-13"),
		CommitDate: days("1996-02-12"), ReceiptDate: days("1996-03-22")}
	for c := range IntColumns {
		assert.Equal(t, IntColumn([]Lineitem{want}, c)[0], IntColumn([]Lineitem{got}, c)[0], "row 0 %s", IntColumns[c])
	}
	// sparse order keys: 1..7, then 32, 33, 34
	assert.Equal(t, int64(34), rows[len(rows)-1].OrderKey, "10 orders end at orderkey")
}
