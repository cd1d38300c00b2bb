/**
 * A small handbook-like corpus with questions whose answer passage is known: exact identifiers,
 * rare words, and questions worded differently from the passage they are answered by.
 */
export const PASSAGES: Record<string, string> = {
  'billing-cycle':
    'Invoices are generated on the first calendar day of every month and cover the usage of the previous month. They are charged automatically to the default payment method on file.',
  'billing-refund':
    'Refund requests must be filed within 30 days of the charge. Approved refunds are returned to the original card and appear on the statement after five to ten business days.',
  'billing-currency':
    'Prices are listed in euros. Customers outside the eurozone are billed in their local currency using the exchange rate published by the central bank on the invoice date.',
  'billing-tax':
    'Value added tax is applied according to the billing address. Business customers that provide a valid VAT identification number are invoiced under the reverse-charge mechanism.',
  'rate-limit':
    'Each API key may send at most 600 requests per minute. When the limit is exceeded the API answers with HTTP status 429 and a Retry-After header giving the number of seconds to wait.',
  'quota-error':
    'The error code ERR_QUOTA_7731 is returned when the monthly quota of the workspace is exhausted. Quotas reset at midnight UTC on the first day of the month, or immediately after an upgrade.',
  'auth-keys':
    'API keys are created in the dashboard under Settings, then Access. A key is shown only once at creation; store it in a secrets manager. Revoked keys stop working within one minute.',
  'auth-sso':
    'Single sign-on is available on the Enterprise plan through SAML 2.0 and OpenID Connect. Administrators upload the identity provider metadata and map groups to workspace roles.',
  'auth-2fa':
    'Two-factor authentication can be enforced for every member of a workspace. Members without a second factor are asked to enrol an authenticator app the next time they log in.',
  'password-reset':
    'To recover a forgotten password, open the login page and choose "Forgot password". A reset link valid for 45 minutes is emailed to the address registered on the account.',
  'backup-schedule':
    'Databases are snapshotted every six hours and snapshots are kept for 35 days. Point-in-time recovery is possible for any second within the last seven days.',
  'backup-restore':
    'Restoring a snapshot creates a new database instance; the original keeps running. Restores of databases under 100 GB usually complete in less than twenty minutes.',
  'region-list':
    'Workloads can be deployed to Frankfurt (eu-central-2), Dublin (eu-west-4), Virginia (us-east-3) and Singapore (ap-southeast-5). Data never leaves the region chosen at creation.',
  'latency-sla':
    'The service level agreement guarantees 99.95 percent monthly availability. If availability falls below the guarantee, customers receive service credits of up to 30 percent of the monthly fee.',
  'incident-comm':
    'During an incident the status page is updated at least every 30 minutes. Customers can subscribe to updates by email, SMS or webhook from the status page footer.',
  'webhook-retry':
    'Webhook deliveries that fail or time out after 10 seconds are retried with exponential backoff for up to 72 hours. Every delivery carries an X-Signature header computed with HMAC-SHA256.',
  'webhook-verify':
    'To verify a webhook, compute the HMAC of the raw request body with your signing secret and compare it to the signature header using a constant-time comparison.',
  'export-csv':
    'Reports can be exported as CSV or Parquet from the Analytics tab. Exports larger than two million rows are delivered as a compressed archive through a download link valid for 24 hours.',
  'import-limits':
    'Bulk imports accept files of up to 500 MB with at most 200 columns. Rows that fail validation are collected in an error report instead of stopping the whole import.',
  'search-index':
    'Uploaded documents are split into chunks of about 800 tokens with an overlap of 400 tokens, embedded, and indexed for hybrid keyword and semantic search.',
  'search-filters':
    'Search results can be narrowed with attribute filters such as author, department or publication year, combined with and/or conditions.',
  'mobile-offline':
    'The mobile app keeps the last 200 opened documents available offline. Edits made without a connection are synchronised automatically when the device reconnects.',
  'mobile-versions':
    'The mobile app supports iOS 16 and later and Android 11 and later. Older operating system versions can still open shared links in the browser.',
  'team-roles':
    'Workspaces have four roles: owner, admin, editor and viewer. Only owners can delete the workspace or change the billing plan; admins manage members and integrations.',
  'team-seats':
    'Seats are billed per active member per month. Guests with view-only access to a single project do not consume a paid seat.',
  'data-retention':
    'Deleted projects stay in the trash for 30 days and can be restored by an owner. After that period they are permanently erased, including from backups within 90 days.',
  'gdpr-dpa':
    'A data processing agreement compliant with the GDPR is available to all customers and can be signed electronically from the Legal section of the workspace settings.',
  encryption:
    'Data is encrypted at rest with AES-256 and in transit with TLS 1.3. Enterprise customers can bring their own key stored in a hardware security module.',
  'cli-install':
    'The command-line tool is installed with "npm install -g acme-cli" and requires Node.js 20 or newer. Run "acme login" once to store credentials in the system keychain.',
  'cli-deploy':
    'The command "acme deploy --prod" builds the project and promotes it to production after the health checks pass. Use --dry-run to preview the changes without applying them.',
  'feature-flags':
    'Feature flags let you release code to a percentage of users. A flag can target users by country, plan or custom attribute, and every change is recorded in the audit log.',
  'audit-log':
    'The audit log records sign-ins, permission changes, key creation and deletions for 400 days. It can be streamed to a SIEM through the syslog or Splunk integrations.',
  'support-hours':
    'Standard support answers tickets on weekdays from 8:00 to 18:00 Central European Time. Premium support adds a phone line around the clock with a one hour response target.',
  'cat-care':
    'Indoor cats should see a veterinarian once a year for vaccinations and a dental check. Kittens need their first shots at eight weeks of age.',
  volcano: 'The 2010 eruption of Eyjafjallajökull sent an ash cloud across Europe that grounded about 100,000 flights over eight days.',
  sourdough:
    'A sourdough starter is fed with equal weights of flour and water. Kept in the refrigerator, it needs feeding only once a week.',
};

export interface RetrievalQuestion {
  question: string;
  answer: keyof typeof PASSAGES;
}

export const QUESTIONS: RetrievalQuestion[] = [
  { question: 'When do I get my monthly invoice?', answer: 'billing-cycle' },
  { question: 'how long until a refund shows up on my card', answer: 'billing-refund' },
  { question: 'what exchange rate is used for customers paying outside the eurozone', answer: 'billing-currency' },
  { question: 'reverse charge VAT number for companies', answer: 'billing-tax' },
  { question: 'What does HTTP 429 mean and how long should I wait?', answer: 'rate-limit' },
  { question: 'ERR_QUOTA_7731', answer: 'quota-error' },
  { question: 'when does the workspace quota reset', answer: 'quota-error' },
  { question: 'where do I create a new API key', answer: 'auth-keys' },
  { question: 'Can we log in with our SAML identity provider?', answer: 'auth-sso' },
  { question: 'require an authenticator app for all members', answer: 'auth-2fa' },
  { question: 'I forgot my password, how do I get back into my account?', answer: 'password-reset' },
  { question: 'how often are database snapshots taken and how long are they retained', answer: 'backup-schedule' },
  { question: 'does restoring a backup overwrite the running database', answer: 'backup-restore' },
  { question: 'eu-west-4', answer: 'region-list' },
  { question: 'which regions can I deploy to in Asia', answer: 'region-list' },
  { question: 'what compensation do we get if availability drops below the guarantee', answer: 'latency-sla' },
  { question: 'how can customers subscribe to incident updates', answer: 'incident-comm' },
  { question: 'are failed webhook deliveries retried', answer: 'webhook-retry' },
  { question: 'how to check the HMAC signature of an incoming webhook', answer: 'webhook-verify' },
  { question: 'export a report to Parquet', answer: 'export-csv' },
  { question: 'maximum file size for bulk import', answer: 'import-limits' },
  { question: 'what chunk size and overlap are used when documents are indexed', answer: 'search-index' },
  { question: 'documents available without an internet connection on the phone', answer: 'mobile-offline' },
  { question: 'which Android version does the app need', answer: 'mobile-versions' },
  { question: 'who is allowed to delete the workspace', answer: 'team-roles' },
  { question: 'do guests count as paid seats', answer: 'team-seats' },
  { question: 'can I recover a project I deleted last week', answer: 'data-retention' },
  { question: 'sign the GDPR data processing agreement', answer: 'gdpr-dpa' },
  { question: 'bring your own encryption key in an HSM', answer: 'encryption' },
  { question: 'npm install -g acme-cli', answer: 'cli-install' },
  { question: 'preview a production deploy without applying changes', answer: 'cli-deploy' },
  { question: 'roll out a feature to a percentage of users by country', answer: 'feature-flags' },
  { question: 'stream audit events to Splunk', answer: 'audit-log' },
  { question: 'is there phone support at night', answer: 'support-hours' },
  { question: 'at what age do kittens get vaccinated', answer: 'cat-care' },
  { question: 'Eyjafjallajokull ash cloud flights', answer: 'volcano' },
  { question: 'how often should I feed a sourdough starter kept in the fridge', answer: 'sourdough' },
];
