package slackoauth

import (
	"crypto/aes"
	"crypto/cipher"
	"crypto/rand"
	"encoding/base64"
	"errors"
	"fmt"
	"strings"
)

// KeySize is the length of FITBOT_TOKEN_KEY once decoded: AES-256.
const KeySize = 32

// ParseKey decodes FITBOT_TOKEN_KEY: base64 (standard or URL alphabet,
// padded or not) of 32 random bytes, as `openssl rand -base64 32` prints.
// The message never repeats the value.
func ParseKey(s string) ([]byte, error) {
	s = strings.TrimSpace(s)
	for _, enc := range []*base64.Encoding{base64.StdEncoding, base64.RawStdEncoding, base64.URLEncoding, base64.RawURLEncoding} {
		if key, err := enc.DecodeString(s); err == nil {
			if len(key) != KeySize {
				return nil, fmt.Errorf("FITBOT_TOKEN_KEY decodes to %d bytes; it must be %d (openssl rand -base64 32)", len(key), KeySize)
			}
			return key, nil
		}
	}
	return nil, errors.New("FITBOT_TOKEN_KEY is not base64 (openssl rand -base64 32 makes one)")
}

// sealer encrypts tokens at rest with AES-256-GCM: a random 12-byte
// nonce, then the ciphertext and its 16-byte tag. The installation's key
// (enterprise/team) is the additional data, so a sealed token moved to
// another row does not open.
type sealer struct{ aead cipher.AEAD }

func newSealer(key []byte) (*sealer, error) {
	block, err := aes.NewCipher(key)
	if err != nil {
		return nil, fmt.Errorf("token key: %w", err)
	}
	aead, err := cipher.NewGCM(block)
	if err != nil {
		return nil, fmt.Errorf("token key: %w", err)
	}
	return &sealer{aead: aead}, nil
}

// seal encrypts token for the installation named by aad.
func (s *sealer) seal(token, aad string) []byte {
	nonce := make([]byte, s.aead.NonceSize(), s.aead.NonceSize()+len(token)+s.aead.Overhead())
	rand.Read(nonce) // crypto/rand.Read never fails (Go 1.24+)
	return s.aead.Seal(nonce, nonce, []byte(token), []byte(aad))
}

// errUnseal means a sealed token did not open: another key, another row,
// or damaged bytes. It never says more.
var errUnseal = errors.New("a stored token does not open with FITBOT_TOKEN_KEY (another key, or a damaged row)")

// open decrypts a sealed token of the installation named by aad.
func (s *sealer) open(sealed []byte, aad string) (string, error) {
	n := s.aead.NonceSize()
	if len(sealed) < n+s.aead.Overhead() {
		return "", errUnseal
	}
	plain, err := s.aead.Open(nil, sealed[:n], sealed[n:], []byte(aad))
	if err != nil {
		return "", errUnseal
	}
	return string(plain), nil
}
