/**
 * What sanitize-html answers for a value of simple markup, made without it: text and bare allowed tags, the
 * shape most rich text and embeds have. sanitize-html costs some 20 to 130 µs a call whatever the value
 * (option merging, a parser, a constructor per call whose hidden classes the GC then collects), so a
 * content of 90,000 `<b>n</b>` values kept the event loop busy for about 12 s.
 *
 * A value qualifies when it is made only of
 * - text without `<`, written as is with each `>` escaped (`&gt;`),
 * - the entities `&amp;` `&lt;` `&gt;` (written as is), `&quot;` `&#39;` `&nbsp;` (written as the character),
 * - `<name>` and `</name>` of an allowed tag, lower case, no attribute or space, each end tag closing the
 *   element opened last and none left open at the end,
 * - `<br>`, `<br/>` or `<br />` (written `<br />`) when br is allowed.
 * For such a value htmlparser2 (under sanitize-html) opens and closes exactly the elements written: no
 * element is closed implicitly (the only tag here whose start closes another is `p`, and it is taken only
 * when no `p` is open), none is raw text, and sanitize-html writes an allowed attribute-free element back as
 * it read it. Anything else gives undefined and goes through sanitize-html. The unit tests compare the two
 * on many random and hostile values.
 */
export function simpleMarkup(value: string, allowed: ReadonlySet<string>): string | undefined {
  const open: string[] = [];
  let out = '';
  let at = 0;
  SPECIAL.lastIndex = 0;
  for (let match = SPECIAL.exec(value); match !== null; match = SPECIAL.exec(value)) {
    out += value.slice(at, match.index);
    at = match.index + 1;
    if (match[0] === '>') {
      out += '&gt;';
      continue;
    }
    if (match[0] === '&') {
      ENTITY.lastIndex = match.index;
      const entity = ENTITY.exec(value)?.[0];
      if (entity === undefined) return undefined;
      out += ENTITY_TEXT.get(entity)!;
      at = match.index + entity.length;
      SPECIAL.lastIndex = at;
      continue;
    }
    TAG.lastIndex = match.index;
    const tag = TAG.exec(value);
    if (tag === null) return undefined;
    const [whole, slash, name = '', selfClosing] = tag;
    at = match.index + whole.length;
    SPECIAL.lastIndex = at;
    if (!allowed.has(name)) return undefined;
    if (name === 'br') {
      if (slash !== '') return undefined; // `</br>` is read as `<br>`: left to sanitize-html
      out += '<br />';
    } else if (selfClosing !== undefined) {
      return undefined; // `<b/>` opens a b
    } else if (slash === '') {
      if (name === 'p' && open.includes('p')) return undefined;
      open.push(name);
      out += `<${name}>`;
    } else {
      if (open.pop() !== name) return undefined;
      out += `</${name}>`;
    }
  }
  if (open.length > 0) return undefined;
  return out + value.slice(at);
}

const SPECIAL = /[<>&]/g;
const ENTITY = /&(?:amp|lt|gt|quot|#39|nbsp);/y;
const ENTITY_TEXT = new Map([
  ['&amp;', '&amp;'],
  ['&lt;', '&lt;'],
  ['&gt;', '&gt;'],
  ['&quot;', '"'],
  ['&#39;', "'"],
  ['&nbsp;', '\u00a0'],
]);
const TAG = /<(\/?)([a-z][a-z0-9]*)( ?\/)?>/y;
