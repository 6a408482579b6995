import type { Random } from './random';

/** Real words, so full-text search over the demo has something to match and rank. */
const ENGLISH = {
  nouns: `city council market election climate river school hospital budget harbour railway museum festival
    minister farmer teacher village bridge forest mountain winter summer report study research energy water
    garden library station company worker family neighbour student museum theatre concert stadium season
    coach player court judge police weather storm harvest price housing tenant landlord airport tourist
    scientist doctor nurse patient vaccine satellite engine factory island coast lake valley border treaty
    parliament mayor committee project history archive painting novel poet orchestra market bakery cafe`,
  verbs: `announced approved rejected opened closed reported discovered built restored expanded reduced raised
    questioned celebrated criticised welcomed delayed launched completed visited explained warned promised
    examined measured recorded defended predicted supported challenged published presented`,
  adjectives: `new old local national regional early late long short quiet busy difficult simple public private
    rural urban historic modern cold warm heavy rare common young experienced remarkable careful ambitious
    uncertain surprising popular controversial independent`,
  connectors: `after before while because although since during despite until whereas`,
};

const GERMAN = {
  nouns: `Stadt Gemeinderat Markt Wahl Klima Fluss Schule Spital Haushalt Hafen Bahn Museum Fest Ministerin
    Bauer Lehrerin Dorf Brücke Wald Berg Winter Sommer Bericht Studie Forschung Energie Wasser Garten
    Bibliothek Bahnhof Firma Familie Nachbar Theater Konzert Stadion Saison Trainer Gericht Polizei Wetter
    Sturm Ernte Preis Wohnung Flughafen Wissenschaftlerin Ärztin Pflege Insel Küste See Tal Grenze Vertrag
    Parlament Bürgermeister Ausschuss Geschichte Archiv Gemälde Roman Orchester Bäckerei`,
  verbs: `kündigte an genehmigte lehnte ab eröffnete schloss berichtete entdeckte baute renovierte erweiterte
    senkte erhöhte feierte kritisierte begrüsste verschob startete besuchte erklärte warnte versprach
    untersuchte veröffentlichte präsentierte`,
  adjectives: `neue alte lokale nationale regionale frühe späte lange kurze ruhige schwierige einfache
    öffentliche ländliche städtische historische moderne kalte warme seltene junge bemerkenswerte`,
  connectors: `nachdem bevor während weil obwohl seit trotz bis`,
};

export type Locale = 'en' | 'de';

const split = (text: string) => text.split(/\s+/).filter(Boolean);
const LISTS = {
  en: Object.fromEntries(Object.entries(ENGLISH).map(([key, value]) => [key, split(value)])),
  de: Object.fromEntries(Object.entries(GERMAN).map(([key, value]) => [key, split(value)])),
} as Record<Locale, Record<keyof typeof ENGLISH, string[]>>;

const capitalise = (word: string) => word.charAt(0).toUpperCase() + word.slice(1);

/** One sentence of 8–18 real words ending with a full stop. */
export function sentence(random: Random, locale: Locale): string {
  const words = LISTS[locale];
  const parts: string[] = [];
  const clauses = random.int(1, 2);
  for (let clause = 0; clause < clauses; clause += 1) {
    if (clause > 0) parts.push(random.pick(words.connectors));
    parts.push(locale === 'en' ? 'the' : random.pick(['die', 'der', 'das']));
    if (random.chance(0.6)) parts.push(random.pick(words.adjectives));
    parts.push(random.pick(words.nouns), random.pick(words.verbs));
    if (random.chance(0.7)) parts.push(locale === 'en' ? 'a' : 'eine', random.pick(words.adjectives));
    parts.push(random.pick(words.nouns));
  }
  return `${capitalise(parts.join(' '))}.`;
}

export function paragraph(random: Random, locale: Locale, sentences = random.int(3, 6)): string {
  return Array.from({ length: sentences }, () => sentence(random, locale)).join(' ');
}

/** A headline: a few capitalised words, no full stop. */
export function headline(random: Random, locale: Locale): string {
  const words = LISTS[locale];
  const title = [
    random.pick(words.adjectives),
    random.pick(words.nouns),
    random.pick(words.verbs),
    random.pick(words.nouns),
  ];
  return capitalise(title.join(' '));
}

export const FIRST_NAMES = [
  'Anna',
  'Ben',
  'Clara',
  'David',
  'Elena',
  'Felix',
  'Greta',
  'Hugo',
  'Ines',
  'Jonas',
  'Katrin',
  'Luca',
  'Mara',
  'Noah',
  'Olivia',
  'Paul',
  'Rosa',
  'Simon',
  'Tara',
  'Urs',
];
export const LAST_NAMES = [
  'Meier',
  'Smith',
  'Keller',
  'Brown',
  'Weber',
  'Taylor',
  'Fischer',
  'Wilson',
  'Schmid',
  'Clark',
  'Huber',
  'Lewis',
  'Frei',
  'Walker',
  'Graf',
];
