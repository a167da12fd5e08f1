package paygate

import (
	"bufio"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"net/url"
	"os"
	"strings"
	"testing"

	"github.com/paygate/paygate-go/callback"
	"github.com/paygate/paygate-go/internal/signing"
	"github.com/paygate/paygate-go/internal/testkit/hmacbench"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/paygate/paygate-go/internal/formenc"
)

type signatureVector struct {
	name, key string
	params    url.Values
	canonical string
	signature string
}

// loadSignatureVectors reads testdata/signature/cases.txt and the vectors
// make-vectors.sh computed from it with openssl.
func loadSignatureVectors(t testing.TB) []signatureVector {
	t.Helper()
	expected := map[string][2]string{}
	for _, line := range strings.Split(strings.TrimSpace(string(fixture(t, "signature/vectors.tsv"))), "\n") {
		f := strings.Split(line, "\t")
		require.Len(t, f, 3, "vector line %q", line)
		expected[f[0]] = [2]string{f[1], f[2]}
	}
	f, err := os.Open("testdata/signature/cases.txt")
	require.NoError(t, err)
	defer f.Close()
	var vs []signatureVector
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		line := sc.Text()
		switch {
		case line == "" || strings.HasPrefix(line, "#"):
		case strings.HasPrefix(line, "case "):
			vs = append(vs, signatureVector{name: strings.TrimPrefix(line, "case "), params: url.Values{}})
		case strings.HasPrefix(line, "key "):
			vs[len(vs)-1].key = strings.TrimPrefix(line, "key ")
		default:
			k, v, ok := strings.Cut(line, "=")
			require.True(t, ok, "bad case line %q", line)
			vs[len(vs)-1].params.Add(k, v)
		}
	}
	require.NoError(t, sc.Err())
	for i := range vs {
		e, ok := expected[vs[i].name]
		require.True(t, ok, "no vector for case %s: run testdata/signature/make-vectors.sh", vs[i].name)
		vs[i].canonical, vs[i].signature = e[0], e[1]
	}
	require.Len(t, vs, len(expected))
	return vs
}

func TestSign_MatchesIndependentVectors(t *testing.T) {
	t.Parallel()
	for _, v := range loadSignatureVectors(t) {
		t.Run(v.name, func(t *testing.T) {
			require.Equal(t, v.canonical, CanonicalString(v.params))
			require.Equal(t, v.signature, Sign(v.params, v.key))
			require.Len(t, v.signature, 64)
		})
	}
}

func TestVerifySignature(t *testing.T) {
	t.Parallel()
	v := loadSignatureVectors(t)[len(loadSignatureVectors(t))-1]
	signed := func() url.Values {
		p := url.Values{}
		for k, vs := range v.params {
			p[k] = append([]string(nil), vs...)
		}
		p.Set(SignatureParam, v.signature)
		return p
	}
	tests := []struct {
		name   string
		mutate func(url.Values)
		key    string
		want   error
	}{
		{"valid", func(url.Values) {}, v.key, nil},
		{"missing signature", func(p url.Values) { p.Del(SignatureParam) }, v.key, ErrSignatureMissing},
		{"empty signature", func(p url.Values) { p.Set(SignatureParam, "") }, v.key, ErrSignatureMissing},
		{"changed value", func(p url.Values) { p.Set("price", "1.00") }, v.key, ErrSignatureInvalid},
		{"added parameter", func(p url.Values) { p.Set("extra", "x") }, v.key, ErrSignatureInvalid},
		{"empty parameter added", func(p url.Values) { p.Set("extra", "") }, v.key, ErrSignatureInvalid},
		{"removed parameter", func(p url.Values) { p.Del("order_id") }, v.key, ErrSignatureInvalid},
		{"uppercase hex", func(p url.Values) { p.Set(SignatureParam, strings.ToUpper(v.signature)) }, v.key, ErrSignatureInvalid},
		{"truncated signature", func(p url.Values) { p.Set(SignatureParam, v.signature[:63]) }, v.key, ErrSignatureInvalid},
		{"other key", func(url.Values) {}, "another-private-key", ErrSignatureInvalid},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := signed()
			tt.mutate(p)
			err := VerifySignature(p, tt.key)
			if tt.want == nil {
				require.NoError(t, err)
				return
			}
			require.ErrorIs(t, err, tt.want)
		})
	}
}

// The scheme's known weakness: values swapped between fields keep the
// signature. The test pins it so the documentation stays true.
func TestVerifySignature_ValuesNotKeysAreSigned(t *testing.T) {
	t.Parallel()
	p := url.Values{"project": {"pk"}, "price": {"10.00"}, "amount": {"99.00"}}
	p.Set(SignatureParam, Sign(p, "key"))
	p.Set("price", "99.00")
	p.Set("amount", "10.00")
	require.NoError(t, VerifySignature(p, "key"))
}

func TestSignatureErrors_AreGatewayCodes(t *testing.T) {
	t.Parallel()
	var e *Error
	require.True(t, errors.As(ErrSignatureMissing, &e))
	require.Equal(t, CodeSignatureMissing, e.Code)
	require.ErrorIs(t, &Error{HTTPStatus: 400, Code: 40101}, ErrSignatureMissing, "the gateway sends 40101 with HTTP 400 too")
	require.ErrorIs(t, &Error{HTTPStatus: 403, Code: 40301}, ErrSignatureInvalid)
}

// The webhook side returns package callback's signature errors, which
// cannot be paygate's *Error (callback does not import this package):
// errors.Is matches each with the sentinel of the same gateway code, both
// ways, as it did when the verifier returned paygate's.
func TestSignatureErrors_MatchCallbackSentinels(t *testing.T) {
	t.Parallel()
	v := testVerifier(t)
	_, missing := v.ParseValues(url.Values{"id": {"1"}})
	require.ErrorIs(t, missing, ErrSignatureMissing)
	assert.NotErrorIs(t, missing, ErrSignatureInvalid)
	_, invalid := v.ParseValues(url.Values{"id": {"1"}, SignatureParam: {strings.Repeat("0", 64)}})
	require.ErrorIs(t, invalid, ErrSignatureInvalid)
	assert.NotErrorIs(t, invalid, ErrSignatureMissing)

	require.ErrorIs(t, VerifySignature(url.Values{}, "key"), callback.ErrSignatureMissing)
	require.ErrorIs(t, &Error{HTTPStatus: 403, Code: CodeSignatureInvalid}, callback.ErrSignatureInvalid)
	assert.NotErrorIs(t, &Error{Code: CodeSignatureInvalid}, callback.ErrSignatureMissing)
}

// typicalCharge is the 12-parameter charge the signing benchmarks use.
func typicalCharge(t testing.TB) signatureVector {
	for _, v := range loadSignatureVectors(t) {
		if v.name == "typical_charge" {
			return v
		}
	}
	t.Fatal("typical_charge vector missing")
	return signatureVector{}
}

// pairs returns the parameters of v as the pipeline's encoder gives them
// to the signer.
func (v signatureVector) pairs() formenc.Pairs {
	var pairs formenc.Pairs
	for k, vs := range v.params {
		for _, val := range vs {
			pairs = append(pairs, formenc.Pair{Key: k, Value: val})
		}
	}
	return pairs
}

// BenchmarkSign measures what every request pays for its signature: the
// values of a typical 12-parameter charge (and the project key) sorted,
// joined and HMACed by the client's reusable signer, as the pipeline does.
// Compare with BenchmarkSignHMACBaseline.
func BenchmarkSign(b *testing.B) {
	v := typicalCharge(b)
	pairs := v.pairs()
	s := signing.New(v.key)
	var sig [signing.Len]byte
	b.ReportAllocs()
	b.ResetTimer()
	for range b.N {
		s.SumPairs(&sig, pairs)
		if string(sig[:]) != v.signature {
			b.Fatal("wrong signature")
		}
	}
}

// BenchmarkSignValues measures the exported Sign on url.Values, which builds
// a signer per call.
func BenchmarkSignValues(b *testing.B) {
	v := typicalCharge(b)
	b.ReportAllocs()
	for i := 0; i < b.N; i++ {
		if Sign(v.params, v.key) != v.signature {
			b.Fatal("wrong signature")
		}
	}
}

// BenchmarkSignHMACBaseline is bare HMAC-SHA256 over the already joined
// canonical string of the same charge: the floor for BenchmarkSign.
func BenchmarkSignHMACBaseline(b *testing.B) {
	v := typicalCharge(b)
	hmacbench.Baseline(b, v.key, v.canonical, v.signature)
}

// FuzzSign checks, for any form body, that a signed set verifies, and that
// changing, adding or dropping any value breaks the signature.
func FuzzSign(f *testing.F) {
	for _, v := range loadSignatureVectors(f) {
		f.Add(v.params.Encode(), v.key)
	}
	f.Add("a=%FF%FE&b=|||&c=", "k")
	f.Fuzz(func(t *testing.T, body, key string) {
		params, err := url.ParseQuery(body)
		if err != nil {
			return
		}
		params.Del(SignatureParam)
		if len(params) == 0 {
			// No values and one empty value have the same canonical string;
			// real requests always carry the project key.
			return
		}
		params.Set(SignatureParam, Sign(params, key))
		if err := VerifySignature(params, key); err != nil {
			t.Fatalf("a freshly signed set does not verify: %v", err)
		}
		for k, vs := range params {
			if k == SignatureParam {
				continue
			}
			orig := vs[0]
			vs[0] = orig + "x"
			if VerifySignature(params, key) == nil {
				t.Fatalf("changed value of %q still verifies", k)
			}
			vs[0] = orig
		}
		params.Add("added", "")
		if VerifySignature(params, key) == nil {
			t.Fatal("an added empty parameter still verifies")
		}
	})
}

func TestCanonicalString_IsWhatSignSigns(t *testing.T) {
	t.Parallel()
	params := url.Values{"b": {"10", "7"}, "a": {"Z", ""}, SignatureParam: {"ignored"}}
	canonical := CanonicalString(params)
	require.Equal(t, "|10|7|Z", canonical)
	mac := hmac.New(sha256.New, []byte(testSecret))
	mac.Write([]byte(canonical))
	require.Equal(t, hex.EncodeToString(mac.Sum(nil)), Sign(params, testSecret))
}
