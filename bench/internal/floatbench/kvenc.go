package floatbench

import "errors"

// KvencName is the name of kvenc's codec in the tables.
const KvencName = "kvenc"

// ErrPending is returned by kvenc's codec in a build whose shapeshift has
// no float columns yet.
var ErrPending = errors.New("kvenc float columns pending")

// KvencCodec is kvenc's float column codec.
func KvencCodec() Codec {
	return Codec{Name: KvencName, Encode: func([]float64) (Encoded, error) { return nil, ErrPending }}
}
