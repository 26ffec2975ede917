package secrettest

import (
	"embed"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// The keys in testdata/keys were made for these tests with ssh-keygen and
// openssl and have never been used anywhere; a real key's shapes (the
// fixed OpenSSH preamble with its runs of A, the DER prefixes of PKCS#1
// and PKCS#8) are what the generated PEM blocks above cannot imitate.
//
//go:embed testdata/keys/*.key
var keyFiles embed.FS

// Key is a private key made by a real tool.
type Key struct {
	Name string // the tool and the key type, such as "ssh-keygen ed25519"
	Text string // the file as the tool wrote it
}

// CommittedKeys returns the keys made for the tests ahead of time, so the
// tests that use them run on every machine.
func CommittedKeys(t testing.TB) []Key {
	t.Helper()
	entries, err := keyFiles.ReadDir("testdata/keys")
	if err != nil {
		t.Fatal(err)
	}
	var keys []Key
	for _, e := range entries {
		b, err := keyFiles.ReadFile("testdata/keys/" + e.Name())
		if err != nil {
			t.Fatal(err)
		}
		keys = append(keys, Key{"committed " + strings.TrimSuffix(e.Name(), ".key"), string(b)})
	}
	if len(keys) < 7 {
		t.Fatalf("only %d committed keys", len(keys))
	}
	return keys
}

// FreshKeys makes new keys with ssh-keygen (ed25519, RSA, ECDSA, and an
// encrypted ed25519) and openssl (RSA as PKCS#1 and PKCS#8, EC), each
// tool only when it is installed; it logs which tool is missing.
func FreshKeys(t testing.TB) []Key {
	t.Helper()
	dir := t.TempDir()
	var keys []Key
	run := func(name, file string, cmd ...string) {
		t.Helper()
		c := exec.Command(cmd[0], cmd[1:]...)
		c.Dir = dir
		if out, err := c.CombinedOutput(); err != nil {
			t.Fatalf("%s: %v\n%s", strings.Join(cmd, " "), err, out)
		}
		b, err := os.ReadFile(filepath.Join(dir, file))
		if err != nil {
			t.Fatal(err)
		}
		keys = append(keys, Key{name, string(b)})
	}
	if _, err := exec.LookPath("ssh-keygen"); err == nil {
		for _, k := range []struct{ typ, pass string }{{"ed25519", ""}, {"rsa", ""}, {"ecdsa", ""}, {"ed25519", "a passphrase"}} {
			file := "ssh-" + k.typ
			name := "ssh-keygen " + k.typ
			if k.pass != "" {
				file += "-encrypted"
				name += " with a passphrase"
			}
			run(name, file, "ssh-keygen", "-q", "-t", k.typ, "-N", k.pass, "-C", "", "-f", file)
		}
	} else {
		t.Log("ssh-keygen is not installed: no fresh OpenSSH keys")
	}
	if _, err := exec.LookPath("openssl"); err == nil {
		// -traditional asks OpenSSL 3 for PKCS#1; OpenSSL 1.1 writes it
		// without being asked and does not know the flag.
		c := exec.Command("openssl", "genrsa", "-traditional", "-out", "probe.pem", "512")
		c.Dir = dir
		if c.Run() == nil {
			run("openssl genrsa (PKCS#1)", "rsa1.pem", "openssl", "genrsa", "-traditional", "-out", "rsa1.pem", "2048")
		} else {
			run("openssl genrsa (PKCS#1)", "rsa1.pem", "openssl", "genrsa", "-out", "rsa1.pem", "2048")
		}
		run("openssl genpkey RSA (PKCS#8)", "rsa8.pem", "openssl", "genpkey", "-algorithm", "RSA", "-pkeyopt", "rsa_keygen_bits:2048", "-out", "rsa8.pem")
		run("openssl ecparam EC", "ec.pem", "openssl", "ecparam", "-genkey", "-name", "prime256v1", "-noout", "-out", "ec.pem")
		run("openssl genpkey ed25519 (PKCS#8)", "ed.pem", "openssl", "genpkey", "-algorithm", "ed25519", "-out", "ed.pem")
	} else {
		t.Log("openssl is not installed: no fresh PEM keys")
	}
	return keys
}

// RealKeys is CommittedKeys and FreshKeys.
func RealKeys(t testing.TB) []Key {
	t.Helper()
	return append(CommittedKeys(t), FreshKeys(t)...)
}
