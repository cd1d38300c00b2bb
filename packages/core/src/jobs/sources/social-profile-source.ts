import type { EgressGuardContract } from '../../egress/types';
import { UpstreamError } from '../../errors';
import type { ToolItem, ToolOutput, ToolRunOptions, ToolSource } from '../types';
import { htmlToText } from './html-to-text';
import { providerJson } from './provider-request';
import { SourceError } from './source-error';

export interface SocialProfileSourceOptions {
  /** Mastodon instances come from the user's handle, so they are reached through the egress guard. */
  egress: EgressGuardContract;
  /** `FATHOM_TOOLS_BLUESKY_URL`, default `https://public.api.bsky.app` (no key needed). */
  blueskyURL?: string;
  /** `FATHOM_TOOLS_GITHUB_URL`, default `https://api.github.com`. */
  githubURL?: string;
  /** `FATHOM_TOOLS_GITHUB_TOKEN`: optional, raises GitHub's rate limit. */
  githubToken?: string;
  /** `FATHOM_TOOLS_MASTODON_URL_TEMPLATE`, default `https://{instance}`. */
  mastodonURLTemplate?: string;
  /** `FATHOM_TOOLS_SOCIAL_PRICE_PER_PROFILE`: cost per profile found; default 0.05. */
  pricePerProfile?: number;
  userAgent?: string;
  /** A `fetch` to use instead of undici's request (tests, proxies). */
  fetch?: typeof fetch;
}

interface Post {
  text: string;
  created_at: string | null;
  url: string | null;
}

/** The `social-profile` tool's input as `validateToolInput` checked it against its input_schema (defaults applied). */
type SocialProfileInput = {
  platform: 'bluesky' | 'mastodon' | 'github';
  username: string;
  include_posts: boolean;
  posts_limit: number;
};

// The fields read from each network's public API, as those APIs document them (every one may be missing).
interface BlueskyProfile {
  handle: string;
  displayName?: string;
  description?: string;
  followersCount?: number;
  followsCount?: number;
  postsCount?: number;
  avatar?: string;
}
interface BlueskyFeed {
  feed?: Array<{ post?: { uri?: string; record?: { text?: string; createdAt?: string } } }>;
}
interface MastodonAccount {
  id: string;
  username?: string;
  display_name?: string;
  note?: string;
  followers_count?: number;
  following_count?: number;
  statuses_count?: number;
  url?: string;
  avatar?: string;
}
interface MastodonStatus {
  content?: string;
  created_at?: string;
  url?: string;
}
interface GitHubUser {
  login: string;
  name?: string | null;
  bio?: string | null;
  followers?: number;
  following?: number;
  public_repos?: number;
  html_url?: string;
  avatar_url?: string;
  company?: string | null;
  location?: string | null;
  blog?: string | null;
}
interface GitHubEvent {
  type: string;
  created_at?: string;
  repo?: { name?: string };
}

/** Public profiles from APIs that need no scraping: Bluesky (AppView), Mastodon (the handle's instance), GitHub. */
export class SocialProfileSource implements ToolSource {
  readonly name = 'social-apis';
  readonly #options: SocialProfileSourceOptions;

  constructor(options: SocialProfileSourceOptions) {
    this.#options = options;
  }

  async run({ input: raw, signal }: ToolRunOptions): Promise<ToolOutput> {
    const input = raw as SocialProfileInput;
    const username = String(input.username).replace(/^@/, '');
    const postsLimit = input.include_posts === false ? 0 : input.posts_limit;
    const profile =
      input.platform === 'bluesky'
        ? await this.#bluesky(username, postsLimit, signal)
        : input.platform === 'mastodon'
          ? await this.#mastodon(username, postsLimit, signal)
          : await this.#github(username, postsLimit, signal);
    return { items: [profile], cost: this.#options.pricePerProfile ?? 0.05 };
  }

  #provider<T>(url: string, provider: string, signal: AbortSignal, headers: Record<string, string> = {}): Promise<T> {
    return providerJson<T>(this.#options.fetch, url, {
      headers: { 'user-agent': this.#options.userAgent ?? 'Fathom data tools', ...headers },
      signal,
      provider,
    }).catch((error) => {
      if (
        error instanceof UpstreamError &&
        (error.statusCode === 404 || (error.statusCode === 400 && /not found|profile/i.test(error.responseBody ?? '')))
      ) {
        throw new SourceError('profile_not_found', `${provider} has no public profile named that; nothing was charged.`);
      }
      throw error;
    });
  }

  async #bluesky(handle: string, postsLimit: number, signal: AbortSignal): Promise<ToolItem> {
    const base = (this.#options.blueskyURL ?? 'https://public.api.bsky.app').replace(/\/+$/, '');
    const actor = encodeURIComponent(handle);
    const profile = await this.#provider<BlueskyProfile>(`${base}/xrpc/app.bsky.actor.getProfile?actor=${actor}`, 'Bluesky', signal);
    let posts: Post[] = [];
    if (postsLimit > 0) {
      const feed = await this.#provider<BlueskyFeed>(
        `${base}/xrpc/app.bsky.feed.getAuthorFeed?actor=${actor}&limit=${postsLimit}&filter=posts_no_replies`,
        'Bluesky',
        signal,
      );
      posts = (feed.feed ?? []).slice(0, postsLimit).map((entry) => ({
        text: entry.post?.record?.text ?? '',
        created_at: entry.post?.record?.createdAt ?? null,
        url: entry.post?.uri ? `https://bsky.app/profile/${profile.handle}/post/${String(entry.post.uri).split('/').pop()}` : null,
      }));
    }
    return {
      type: 'profile',
      value: profile.handle,
      platform: 'bluesky',
      name: profile.displayName ?? null,
      bio: profile.description ?? null,
      followers: profile.followersCount ?? null,
      following: profile.followsCount ?? null,
      posts_count: profile.postsCount ?? null,
      url: `https://bsky.app/profile/${profile.handle}`,
      avatar: profile.avatar ?? null,
      posts,
    };
  }

  async #mastodon(handle: string, postsLimit: number, signal: AbortSignal): Promise<ToolItem> {
    const [user, instance] = handle.split('@');
    if (!user || !instance)
      throw new SourceError('invalid_handle', `A Mastodon handle looks like 'user@instance.social'; got '${handle}'. Nothing was charged.`);
    const base = (this.#options.mastodonURLTemplate ?? 'https://{instance}').replace('{instance}', instance).replace(/\/+$/, '');
    const get = async <T>(path: string): Promise<T> => {
      const response = await this.#options.egress.request(`${base}${path}`, {
        headers: { accept: 'application/json', 'user-agent': this.#options.userAgent ?? 'Fathom data tools' },
        signal,
        timeoutMs: 15_000,
        maxBytes: 2 * 1024 * 1024,
      });
      if (response.status === 404) throw new SourceError('profile_not_found', `${instance} has no account '${user}'; nothing was charged.`);
      if (response.status >= 400)
        throw new UpstreamError(`Mastodon instance ${instance} answered HTTP ${response.status}.`, {
          statusCode: response.status,
          code: 'provider_error',
          status: 502,
        });
      return JSON.parse(response.text()) as T;
    };
    const account = await get<MastodonAccount>(`/api/v1/accounts/lookup?acct=${encodeURIComponent(user)}`);
    const statuses =
      postsLimit > 0
        ? await get<MastodonStatus[]>(
            `/api/v1/accounts/${encodeURIComponent(account.id)}/statuses?limit=${postsLimit}&exclude_replies=true`,
          )
        : [];
    return {
      type: 'profile',
      value: `${account.username ?? user}@${instance}`,
      platform: 'mastodon',
      name: account.display_name || null,
      bio: account.note ? htmlToText(account.note) : null,
      followers: account.followers_count ?? null,
      following: account.following_count ?? null,
      posts_count: account.statuses_count ?? null,
      url: account.url ?? null,
      avatar: account.avatar ?? null,
      posts: statuses
        .slice(0, postsLimit)
        .map((status) => ({ text: htmlToText(status.content ?? ''), created_at: status.created_at ?? null, url: status.url ?? null })),
    };
  }

  async #github(login: string, postsLimit: number, signal: AbortSignal): Promise<ToolItem> {
    const base = (this.#options.githubURL ?? 'https://api.github.com').replace(/\/+$/, '');
    const headers: Record<string, string> = {
      accept: 'application/vnd.github+json',
      ...(this.#options.githubToken ? { authorization: `Bearer ${this.#options.githubToken}` } : {}),
    };
    const user = await this.#provider<GitHubUser>(`${base}/users/${encodeURIComponent(login)}`, 'GitHub', signal, headers);
    let posts: Post[] = [];
    if (postsLimit > 0) {
      const events = await this.#provider<GitHubEvent[]>(
        `${base}/users/${encodeURIComponent(login)}/events/public?per_page=${postsLimit}`,
        'GitHub',
        signal,
        headers,
      );
      posts = events.slice(0, postsLimit).map((event) => ({
        text: `${event.type}${event.repo?.name ? ` on ${event.repo.name}` : ''}`,
        created_at: event.created_at ?? null,
        url: event.repo?.name ? `https://github.com/${event.repo.name}` : null,
      }));
    }
    return {
      type: 'profile',
      value: user.login,
      platform: 'github',
      name: user.name ?? null,
      bio: user.bio ?? null,
      followers: user.followers ?? null,
      following: user.following ?? null,
      posts_count: user.public_repos ?? null,
      url: user.html_url ?? `https://github.com/${user.login}`,
      avatar: user.avatar_url ?? null,
      company: user.company ?? null,
      location: user.location ?? null,
      website: user.blog || null,
      posts,
    };
  }
}
