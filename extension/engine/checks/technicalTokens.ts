/**
 * What technical prose writes that is no misspelling, in or out of backticks: language and country
 * codes ("ja", "zh", "kk"), the Latin abbreviations of citations ("et al.", "cf."), units ("ms",
 * "GiB"), and runs that are code by their shape (flags, handles, identifiers, paths, versions).
 */

/** ISO 639-1 language codes (from Debian's iso-codes, iso_639-2.json's alpha_2). */
const LANGUAGE_CODES =
  'aa ab ae af ak am an ar as av ay az ba be bg bh bi bm bn bo br bs ca ce ch co cr cs cu cv cy da de dv dz ee ' +
  'el en eo es et eu fa ff fi fj fo fr fy ga gd gl gn gu gv ha he hi ho hr ht hu hy hz ia id ie ig ii ik io is ' +
  'it iu ja jv ka kg ki kj kk kl km kn ko kr ks ku kv kw ky la lb lg li ln lo lt lu lv mg mh mi mk ml mn mr ms ' +
  'mt my na nb nd ne ng nl nn no nr nv ny oc oj om or os pa pi pl ps pt qu rm rn ro ru rw sa sc sd se sg si sk ' +
  'sl sm sn so sq sr ss st su sv sw ta te tg th ti tk tl tn to tr ts tt tw ty ug uk ur uz ve vi vo wa wo xh yi ' +
  'yo za zh zu';
/** ISO 3166-1 alpha-2 country codes not already language codes (iso_3166-1.json's alpha_2, lower-cased). */
const COUNTRY_CODES =
  'ad ag ai al ao aq at au aw ax bb bd bf bj bl bq bt bv bw by bz cc cd cf cg ci ck cl cm cn cw cx cz dj dk dm ' +
  'do ec eg eh er fk fm gb ge gf gg gh gi gm gp gq gr gs gt gw gy hk hm hn il im in iq ir je jm jo jp ke kh kp ' +
  'kz lc lk lr ls ly ma mc md me mf mm mo mp mq mu mv mw mx mz nc nf ni np nu nz pe pf pg ph pk pm pn pr pw py ' +
  'qa re rs sb sh sj sx sy sz tc td tf tj tm tv tz ua um us uy va vc vg vn vu wf ws ye yt zm zw';
/** Latin abbreviations of references and prose ("et al.", "cf.", "viz."). */
const ABBREVIATIONS = 'et al cf viz ibid approx etc vs resp incl excl esp misc';
/** Units and their prefixes, as written after a number ("10 ms", "4 GiB", "60 fps"). */
const UNITS =
  'ms ns us µs ps kb mb gb tb pb kib mib gib tib bps kbps mbps gbps px pt em rem vh vw dpi ppi fps hz khz mhz ' +
  'ghz kg mg km cm mm nm µm kw mw kwh rpm tok toks';

export const TECHNICAL_WORDS: ReadonlySet<string> = new Set(
  [LANGUAGE_CODES, COUNTRY_CODES, ABBREVIATIONS, UNITS].flatMap((s) => s.split(' ')),
);

/**
 * Whether `word` (letters only) is a code, an abbreviation or a unit of TECHNICAL_WORDS, in lower case
 * or capitals, or an abbreviation by its shape: no vowel at all ("cwd", "fd", "js", "rtl"), which no
 * English word, and hardly any typo of one, lacks.
 */
export function isTechnicalWord(word: string): boolean {
  return (
    TECHNICAL_WORDS.has(word) ||
    (word === word.toUpperCase() && TECHNICAL_WORDS.has(word.toLowerCase())) ||
    (/^\p{Script=Latin}+$/u.test(word) && !/[aeiouyAEIOUY]/.test(word.normalize('NFD')))
  );
}

/**
 * Whether a whitespace-separated run is code rather than words: a command-line flag ("--echo",
 * "-m"), a handle ("@martinpopel"), a path or URL, an identifier (snake_case, SCREAMING_CASE,
 * dotted.names, camelCase), or anything with a digit (versions, hashes, "10ms").
 */
export function isCodeRun(run: string): boolean {
  if (/^[("'[]*--?\p{L}/u.test(run)) return true; // a flag
  const bare = run.replace(EDGE, '');
  if (/[\p{N}_/\\@=<>{}[\]|#~^*$%&+]/u.test(bare)) return true;
  if (/\p{L}\.\p{L}/u.test(bare)) return true; // dotted.names, e.g., i.e.
  return /\p{Ll}\p{Lu}/u.test(bare); // camelCase
}

/** Punctuation at a run's edges ("(word),"), which is not part of its word; a handle's '@' is kept. */
export const EDGE = /^[^\p{L}\p{N}@]+|[^\p{L}\p{N}]+$/gu;
