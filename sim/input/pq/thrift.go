package pq

import (
	"errors"
	"fmt"
)

// checkThrift walks a footer in Thrift's compact protocol (a
// FileMetaData struct) without decoding it, refusing every length that
// exceeds the bytes left — each list element takes at least one byte,
// each map entry two — and more than MaxFooterStructs structs in lists,
// so the decoder that follows cannot be made to allocate from a count.
func checkThrift(b []byte) error {
	c := &thriftCheck{b: b}
	if err := c.structure(0); err != nil {
		return err
	}
	return nil
}

type thriftCheck struct {
	b       []byte
	pos     int
	structs int
}

var errShort = errors.New("ends inside a value")

const maxDepth = 32

func (c *thriftCheck) left() int { return len(c.b) - c.pos }

func (c *thriftCheck) byte1() (byte, error) {
	if c.pos >= len(c.b) {
		return 0, errShort
	}
	c.pos++
	return c.b[c.pos-1], nil
}

func (c *thriftCheck) uvarint() (uint64, error) {
	var x uint64
	for shift := 0; shift < 64; shift += 7 {
		b, err := c.byte1()
		if err != nil {
			return 0, err
		}
		x |= uint64(b&0x7f) << shift
		if b < 0x80 {
			return x, nil
		}
	}
	return 0, errors.New("varint longer than 10 bytes")
}

func (c *thriftCheck) skip(n uint64) error {
	if n > uint64(c.left()) {
		return fmt.Errorf("a length of %d at byte %d, but only %d bytes are left", n, c.pos, c.left())
	}
	c.pos += int(n)
	return nil
}

func (c *thriftCheck) structure(depth int) error {
	if depth > maxDepth {
		return fmt.Errorf("nested deeper than %d", maxDepth)
	}
	for {
		h, err := c.byte1()
		if err != nil {
			return err
		}
		if h == 0 {
			return nil // stop
		}
		if h>>4 == 0 { // long form: the field id follows
			if _, err := c.uvarint(); err != nil {
				return err
			}
		}
		if err := c.value(h&0x0f, depth, false); err != nil {
			return err
		}
	}
}

// value skips one value of compact type t; inList says a bool is a byte.
func (c *thriftCheck) value(t byte, depth int, inList bool) error {
	switch t {
	case 1, 2: // bool: in the field header, or one byte in a list
		if inList {
			return c.skip(1)
		}
		return nil
	case 3:
		return c.skip(1)
	case 4, 5, 6:
		_, err := c.uvarint()
		return err
	case 7:
		return c.skip(8)
	case 8:
		n, err := c.uvarint()
		if err != nil {
			return err
		}
		return c.skip(n)
	case 9, 10:
		h, err := c.byte1()
		if err != nil {
			return err
		}
		n := uint64(h >> 4)
		if n == 15 {
			if n, err = c.uvarint(); err != nil {
				return err
			}
		}
		if n > uint64(c.left()) {
			return fmt.Errorf("a list of %d elements at byte %d, but only %d bytes are left", n, c.pos, c.left())
		}
		et := h & 0x0f
		if et == 12 {
			c.structs += int(n)
			if c.structs > MaxFooterStructs {
				return fmt.Errorf("more than %d structs in lists", MaxFooterStructs)
			}
		}
		for i := uint64(0); i < n; i++ {
			if err := c.value(et, depth+1, true); err != nil {
				return err
			}
		}
		return nil
	case 11:
		n, err := c.uvarint()
		if err != nil || n == 0 {
			return err
		}
		if n > uint64(c.left())/2 {
			return fmt.Errorf("a map of %d entries at byte %d, but only %d bytes are left", n, c.pos, c.left())
		}
		kv, err := c.byte1()
		if err != nil {
			return err
		}
		if kv>>4 == 12 || kv&0x0f == 12 {
			c.structs += int(n)
			if c.structs > MaxFooterStructs {
				return fmt.Errorf("more than %d structs in lists", MaxFooterStructs)
			}
		}
		for i := uint64(0); i < n; i++ {
			if err := c.value(kv>>4, depth+1, true); err != nil {
				return err
			}
			if err := c.value(kv&0x0f, depth+1, true); err != nil {
				return err
			}
		}
		return nil
	case 12:
		return c.structure(depth + 1)
	case 13:
		return c.skip(16)
	}
	return fmt.Errorf("unknown Thrift type %d at byte %d", t, c.pos)
}
