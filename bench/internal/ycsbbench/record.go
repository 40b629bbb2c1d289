package ycsbbench

import (
	"encoding/binary"
	"errors"
	"slices"
)

// A record is stored as one value: its fields sorted by name, each as
// uvarint name length, name, uvarint value length, value.

func encodeRecord(dst []byte, fields map[string][]byte) []byte {
	names := make([]string, 0, len(fields))
	for n := range fields {
		names = append(names, n)
	}
	slices.Sort(names)
	for _, n := range names {
		dst = binary.AppendUvarint(dst, uint64(len(n)))
		dst = append(dst, n...)
		dst = binary.AppendUvarint(dst, uint64(len(fields[n])))
		dst = append(dst, fields[n]...)
	}
	return dst
}

var errBadRecord = errors.New("ycsbbench: malformed record")

// decodeRecord adds the record's fields to m (copies; src may be reused),
// keeping only names in want when want is not empty.
func decodeRecord(m map[string][]byte, src []byte, want []string) error {
	for len(src) > 0 {
		var parts [2][]byte
		for i := range parts {
			n, k := binary.Uvarint(src)
			if k <= 0 || n > uint64(len(src)-k) {
				return errBadRecord
			}
			parts[i], src = src[k:k+int(n)], src[k+int(n):]
		}
		name := string(parts[0])
		if len(want) == 0 || slices.Contains(want, name) {
			m[name] = append([]byte(nil), parts[1]...)
		}
	}
	return nil
}
