package codex

import (
	"slices"
	"strings"
	"sync"

	"github.com/aitexteditor/aite/internal/textnorm"
)

// diminutives maps the usual short or pet forms of first names, folded, to
// the full names they stand for (rule 8 of group.go): "Lizzy" is
// Elizabeth, "Варя" is Варвара. Only forms every reader knows are listed;
// a form that may stand for several names lists them all, and the rule
// links it only when the book uses exactly one of them. Built on first
// use, so that no command pays for it at start.
var diminutives = sync.OnceValue(func() map[string][]string {
	out := map[string][]string{}
	for _, line := range []string{
		// English
		"elizabeth: lizzy lizzie liz eliza beth bess bessy betsy betty",
		"catherine katherine kathleen: kitty kate katie kathy kit",
		"margaret: maggie meg peggy madge",
		"mary: polly molly mamie",
		"sarah sara: sally sal",
		"frances: fanny",
		"anne ann anna: annie nancy nan",
		"jane: jenny",
		"susan susanna: sue sukey susie",
		"charlotte: lottie lotty",
		"caroline: carrie",
		"william: will willy bill billy",
		"thomas: tom tommy",
		"john: jack johnny",
		"richard: dick dickie rick",
		"robert: bob bobby rob robin",
		"edward: ned ted teddy",
		"henry: harry hal",
		"charles: charlie charley chuck",
		"james: jim jimmy jem jamie",
		"george: georgie",
		"frederick: fred freddy",
		"benjamin: ben benny",
		"nicholas: nick",
		"theodore: theo",
		// Russian
		"александр александра: саша шура",
		"алексей: алёша леша лёша",
		"анна: аня анюта нюра",
		"варвара: варя",
		"дмитрий: митя дима",
		"евгений евгения: женя",
		"екатерина: катя катюша",
		"елена: лена",
		"елизавета: лиза",
		"иван: ваня",
		"мария: маша маня",
		"михаил: миша",
		"наталья наталия: наташа",
		"николай: коля",
		"ольга: оля",
		"пётр: петя",
		"сергей: серёжа",
		"софья софия: соня",
		"татьяна: таня",
		"фёдор: федя",
		"владимир: володя",
		"лев: лёва",
		"павел: паша",
		"авдотья: дуня дуняша",
		"прасковья: паша параша",
		"григорий: гриша",
		"василий: вася",
		"константин: костя",
		"надежда: надя",
		"любовь: люба",
		"людмила: люда",
		"вера: верочка",
	} {
		full, short, _ := strings.Cut(line, ":")
		for _, s := range strings.Fields(short) {
			for _, f := range strings.Fields(full) {
				k := textnorm.Fold(s)
				out[k] = append(out[k], textnorm.Fold(f))
			}
		}
	}
	return out
})

// petTitles are the titles a name may own and still be called by a pet
// form: Miss Elizabeth is Lizzy, Lady Catherine is not Kitty.
var petTitles = map[string]bool{"miss": true, "master": true, "мисс": true}

// diminutiveOwner returns the compound a pet form stands for: c is one
// first name used alone (no title, initials or other name), a form
// listed in diminutives, and exactly one of its full names is a compound
// of its own, used alone without a title, that no title but Miss or
// Master owns (dominant, rule 1). nil otherwise.
func diminutiveOwner(c *compound, comps map[string]*compound, keys []string, f *finder, dominant map[string]*compound) *compound {
	if !c.loneName() || c.patronym {
		return nil
	}
	fulls := diminutives()[textnorm.Fold(f.clusters[c.parts[0].cluster].display())]
	if len(fulls) == 0 {
		return nil
	}
	var owner *compound
	for _, k := range keys {
		b := comps[k]
		if b == c || !b.loneName() {
			continue
		}
		if d := dominant[b.key]; d != nil && !petTitles[d.parts[0].norm] {
			continue
		}
		if !slices.Contains(fulls, textnorm.Fold(f.clusters[b.parts[0].cluster].display())) {
			continue
		}
		if owner != nil {
			return nil // Саша: Александр and Александра both in the book
		}
		owner = b
	}
	return owner
}
