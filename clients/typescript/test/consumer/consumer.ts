// A game's TypeScript against the installed package's declarations, type-checked in the fresh
// folder with `tsc --noEmit` (tests/tests/client_package.rs), as a bundler and as Node resolve
// the package: the REST client typed from the generated schema, the realtime client, its
// messages and the domain events narrowed by their kind, the browser's WebSocket fitting the
// client's option. Each `@ts-expect-error` proves a type is checked, not `any`.

import {
  CloseCode,
  RealtimeClient,
  createSafezoneClient,
  withUserKey,
  type ApiError,
  type Disconnected,
  type DomainEvent,
  type EventOf,
  type Granted,
  type RealtimeMessage,
  type Schema,
  type WebSocketConstructor,
} from '@safezone/client';

export async function signIn(baseUrl: string, deviceId: string): Promise<string> {
  const safezone = createSafezoneClient(baseUrl);
  const { data, error } = await safezone.POST('/api/validate/device/{deviceId}', {
    params: { path: { deviceId } },
  });
  if (error) {
    const refused: ApiError = error;
    throw new Error(refused.code);
  }
  const user: Schema<'ApiUser'> = data.user;
  safezone.use(withUserKey(user.key));
  const account = await safezone.GET('/api/user/{userKey}', {
    params: { path: { userKey: user.key } },
  });
  const coins: number | undefined = account.data?.user.coins;
  // @ts-expect-error a path the document does not have
  await safezone.GET('/api/no-such-path', {});
  // @ts-expect-error the path's parameter is required
  await safezone.GET('/api/user/{userKey}', {});
  return `${user.key}:${coins}`;
}

export function granted(event: DomainEvent): Granted[] {
  switch (event.kind) {
    case 'purchase':
    case 'reward_claimed':
    case 'holdings_changed':
      return event.granted;
    case 'pack_opened':
      return event.drops;
    case 'match_reported':
      return event.players.flatMap((player) => player.granted ?? []);
    default:
      // @ts-expect-error only the kinds above carry what was granted
      return event.granted;
  }
}

export function follow(baseUrl: string, userKey: string, after?: number): RealtimeClient {
  const browsers: WebSocketConstructor = WebSocket;
  const realtime = new RealtimeClient({ baseUrl, userKey, after, WebSocket: browsers });
  realtime.on('event', ({ position, event }) => {
    const level: EventOf<'level_reached'>['level'] | undefined =
      event.kind === 'level_reached' ? event.level : undefined;
    console.log(position, event.id, event.at, level, granted(event));
  });
  realtime.on('reset', ({ position }) => {
    console.log('reload the account; the stream goes on after', position);
  });
  realtime.on('content', ({ version, maintenance }) => console.log(version, maintenance));
  realtime.on('disconnected', (ended: Disconnected) => {
    if (ended.code === CloseCode.keyInvalid) {
      console.log('sign in again');
    }
  });
  // @ts-expect-error not a message the client reports
  realtime.on('pong', () => {});
  return realtime;
}

export async function iterate(realtime: RealtimeClient): Promise<number | undefined> {
  for await (const message of realtime) {
    const known: RealtimeMessage = message;
    if (known.type === 'welcome') {
      console.log(known.contentVersion, known.pingSecs);
    }
  }
  realtime.close();
  return realtime.position;
}
