package tokenizer

import "unicode/utf8"

// byteEncoder is GPT-2's bytes_to_unicode: printable bytes stand for
// themselves and the others are moved to U+0100 and up, so that every byte is
// one visible character in vocab and merges.
func byteEncoder() [256]rune {
	var enc [256]rune
	n := 0
	for b := 0; b < 256; b++ {
		if '!' <= b && b <= '~' || 0xA1 <= b && b <= 0xAC || 0xAE <= b && b <= 0xFF {
			enc[b] = rune(b)
		} else {
			enc[b] = rune(256 + n)
			n++
		}
	}
	return enc
}

// byteDecoder inverts byteEncoder.
func byteDecoder() map[rune]byte {
	enc := byteEncoder()
	dec := make(map[rune]byte, 256)
	for b, r := range enc {
		dec[r] = byte(b)
	}
	return dec
}

// decodeByteLevel maps a vocabulary token back to the bytes it stands for.
func decodeByteLevel(tok string, dec map[rune]byte) ([]byte, bool) {
	out := make([]byte, 0, len(tok))
	for _, r := range tok {
		if r == utf8.RuneError {
			return nil, false
		}
		b, ok := dec[r]
		if !ok {
			return nil, false
		}
		out = append(out, b)
	}
	return out, true
}
