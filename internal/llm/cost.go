package llm

import "unicode"

// Pricing is the price of a model per 1,000 tokens, in any currency unit.
type Pricing struct {
	InputPer1K       float64 `json:"inputPer1K"`
	CachedInputPer1K float64 `json:"cachedInputPer1K,omitempty"` // 0 = cached input billed at InputPer1K
	OutputPer1K      float64 `json:"outputPer1K"`
}

// Cost prices u: uncached input, cached input and output tokens at their
// rates. u.Cost is ignored.
func (p Pricing) Cost(u Usage) float64 {
	cached := min(max(u.CachedInputTokens, 0), u.InputTokens)
	cachedRate := p.CachedInputPer1K
	if cachedRate == 0 {
		cachedRate = p.InputPer1K
	}
	return (float64(u.InputTokens-cached)*p.InputPer1K +
		float64(cached)*cachedRate +
		float64(u.OutputTokens)*p.OutputPer1K) / 1000
}

// EstimateTokens is a deliberately simple, tokenizer-free estimate of the
// token count of s, for cost experiments and budget checks. It counts the
// runes of s (every rune, spaces and punctuation included) in three classes:
//
//	C = Cyrillic letters (unicode.Cyrillic)
//	H = Han, Hiragana, Katakana and Hangul runes
//	L = all other runes
//
// and returns ceil(L/4 + C/2.5 + H), computed exactly in integers as
// ceil((5L + 8C + 20H) / 20). So 4 Latin runes ≈ 1 token, 5 Cyrillic runes ≈
// 2 tokens, 1 CJK rune ≈ 1 token; "" gives 0. Invalid UTF-8 bytes count as
// one L rune each. Use it the same way everywhere; never compare it with
// provider-reported usage as if it were exact.
func EstimateTokens(s string) int {
	var l, c, h int
	for _, r := range s {
		switch {
		case r < 0x400: // below the first Cyrillic block: the common fast path
			l++
		case unicode.Is(unicode.Cyrillic, r):
			c++
		case unicode.In(r, unicode.Han, unicode.Hiragana, unicode.Katakana, unicode.Hangul):
			h++
		default:
			l++
		}
	}
	return (5*l + 8*c + 20*h + 19) / 20
}
