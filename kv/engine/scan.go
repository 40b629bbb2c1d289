package engine

// Scan calls f on an iterator of e over the keys in [lower, upper), at
// each key in order, until f fails, and returns f's error or the
// iterator's.
func Scan(e Engine, lower, upper []byte, f func(it Iter) error) error {
	it, err := e.NewIter(IterOptions{Lower: lower, Upper: upper})
	if err != nil {
		return err
	}
	defer it.Close()
	for ok := it.First(); ok; ok = it.Next() {
		if err := f(it); err != nil {
			return err
		}
	}
	return it.Err()
}
