package checkpoint

import "hash/crc32"

// castagnoli is the CRC-32C table that LevelDB and TensorFlow use.
var castagnoli = crc32.MakeTable(crc32.Castagnoli)

// crcMaskDelta is the constant LevelDB and TensorFlow add when masking.
const crcMaskDelta = 0xa282ead8

// maskCRC masks a CRC-32C as LevelDB and TensorFlow store it: a CRC over
// data that holds CRCs is weak, so stored CRCs are rotated right by 15 bits
// and offset.
func maskCRC(c uint32) uint32 { return (c>>15 | c<<17) + crcMaskDelta }

// unmaskCRC inverts maskCRC.
func unmaskCRC(m uint32) uint32 {
	r := m - crcMaskDelta
	return r>>17 | r<<15
}

// crc32c returns the CRC-32C of b.
func crc32c(b []byte) uint32 { return crc32.Checksum(b, castagnoli) }

// extendCRC extends the CRC-32C c with b.
func extendCRC(c uint32, b []byte) uint32 { return crc32.Update(c, castagnoli, b) }
