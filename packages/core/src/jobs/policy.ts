import { InvalidRequestError } from '../errors';
import { TOOL_POLICY } from './catalog';

/** Tools that return data about people; the minors rule applies to them (and to nl-data). */
const PEOPLE_TOOLS = new Set(['pronet-profile', 'pronet-profile-detail', 'pronet-employees', 'leads-finder', 'social-profile', 'nl-data']);

interface Rule {
  reason: string;
  pattern: RegExp;
  /** When set, the rule applies only if this also matches (context that makes the pattern about people data). */
  alsoRequires?: RegExp;
  tools?: Set<string>;
}

/** Words that name personal data; "kids" alone may be a market ("kids fashion"), "emails of kids" is not. */
const PERSONAL_DATA =
  /\b(e-?mails?|phones?|numbers?|addresses|address|contacts?|profiles?|names|photos?|social media|instagram|tiktok|snapchat|accounts?|lists? of|locations?|whereabouts|schools?)\b/i;

const RULES: Rule[] = [
  {
    reason: 'it asks for data on minors',
    tools: PEOPLE_TOOLS,
    pattern:
      /\b(minors?|under-?age|underaged|teenagers|schoolchildren|schoolkids|pupils|under\s*(the\s*age\s*of\s*)?(1[0-8]|[0-9])|(aged?|age)\s*([0-9]|1[0-7])\b|([0-9]|1[0-7])[- ]years?[- ]olds?|high[- ]school(ers| students)|elementary school students)\b/i,
  },
  {
    reason: 'it asks for data on minors',
    tools: PEOPLE_TOOLS,
    pattern: /\b(child(ren)?|kids?|teens?|girls|boys|babies)\b/i,
    alsoRequires: PERSONAL_DATA,
  },
  {
    reason: 'it asks to track or surveil one private individual',
    pattern:
      /(\b(track(ing)?( down)?|follow(ing)?|monitor(ing)?|watch(ing)?|locat(e|ing))\s+(him|her|them|this (person|guy|woman|man|girl|boy)|my \w+|someone|a (private )?(person|individual))\b|\b(stalk\w*|spy(ing)? on|surveil\w*|keep(ing)? tabs on|whereabouts)\b|\b(home|private|residential) address(es)? of\b|\bwhere (does|do|did) (he|she|they) live\b|\bdaily routine of\b|\bmy ex(-?(wife|husband|girlfriend|boyfriend|partner))?\b)/i,
  },
  {
    reason: 'it asks for a bulk list meant for spam',
    pattern:
      /\b(spam(ming)?|bulk (e-?mail|email|sms|text|messag\w*|dm)s?|mass (e-?mail|email|mail(ing)?|messag\w*|dm|sms|text)\w*|unsolicited|e-?mail blasts?|blast (e-?mail|message)s?|every e-?mail address|all e-?mail addresses|harvest(ing)? e-?mails?|scrape (all|every) e-?mails?)\b/i,
  },
];

function strings(value: unknown, out: string[] = []): string[] {
  if (typeof value === 'string') out.push(value);
  else if (Array.isArray(value)) value.forEach((inner) => strings(inner, out));
  else if (value && typeof value === 'object') Object.values(value).forEach((inner) => strings(inner, out));
  return out;
}

/** The reason an input is refused under the data tools' use policy (legitimate prospecting and enrichment only), or null when it is acceptable. */
export function policyRefusal(tool: string, input: Record<string, unknown>): string | null {
  const text = strings(input).join('\n');
  for (const rule of RULES) {
    if (rule.tools && !rule.tools.has(tool)) continue;
    if (rule.pattern.test(text) && (!rule.alsoRequires || rule.alsoRequires.test(text))) return rule.reason;
  }
  return null;
}

/** Throws 400 `policy_violation` with a clear reason when the input breaks the use policy. */
export function enforcePolicy(tool: string, input: Record<string, unknown>): void {
  const reason = policyRefusal(tool, input);
  if (reason) {
    throw new InvalidRequestError(`Request refused by the data-tools policy: ${reason}. ${TOOL_POLICY}`, null, 'policy_violation');
  }
}
