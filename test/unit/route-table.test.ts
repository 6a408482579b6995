import express from 'express';
import { ApiVersion } from '../../src/domain/api-versions';
import { onlyIn } from '../../src/http/middleware/api-version';
import { listRoutes, pathParamNames, routeExistsIn, routeMatchers } from '../../src/http/route-table';

describe('listRoutes', () => {
  it('when routers are nested, then every route comes with its method and its full path template', () => {
    const app = express();
    const inner = express.Router({ mergeParams: true });
    inner.get('/documents/:documentId', (_req, res) => res.end());
    inner
      .route('/items')
      .get((_req, res) => res.end())
      .post((_req, res) => res.end());
    inner.use((_req, _res, next) => next());
    app.use('/api/:apiVersion', (_req, _res, next) => next(), inner);
    app.patch('/top', (_req, res) => res.end());
    expect(listRoutes(app.router)).toEqual([
      { method: 'GET', path: '/api/:apiVersion/documents/:documentId' },
      { method: 'GET', path: '/api/:apiVersion/items' },
      { method: 'POST', path: '/api/:apiVersion/items' },
      { method: 'PATCH', path: '/top' },
    ]);
  });
});

describe('routeExistsIn', () => {
  it('when a route has an onlyIn gate, then the table carries its range and says which versions have it', () => {
    const router = express.Router();
    router.get('/menus', onlyIn({ to: '2025-03' }), (_req, res) => res.end());
    router.get('/search', (_req, res) => res.end());
    const [menus, search] = listRoutes(router);
    expect(menus).toEqual({ method: 'GET', path: '/menus', versions: { to: '2025-03' } });
    expect(search).toEqual({ method: 'GET', path: '/search' });
    const exists = (label: string) => routeExistsIn(menus!, ApiVersion.parse(label)!);
    expect(['v1', 'beta', '2025-03'].map(exists)).toEqual([true, true, true]);
    expect(['2025-05', '2026-03'].map(exists)).toEqual([false, false]);
    expect(routeExistsIn(search!, ApiVersion.parse('2026-03')!)).toBe(true);
  });
});

describe('pathParamNames', () => {
  it('when a template has named and wildcard parameters, then their names come in order', () => {
    expect(pathParamNames('/api/:apiVersion/documents/:documentId/renditions/:renditionHandles')).toEqual([
      'apiVersion',
      'documentId',
      'renditionHandles',
    ]);
    expect(pathParamNames('/files/*rest')).toEqual(['rest']);
    expect(pathParamNames('/health')).toEqual([]);
  });
});

describe('routeMatchers', () => {
  it('when a path is asked, then each route says whether Express would take it, a parameter that does not decode included', () => {
    const router = express.Router();
    router.get('/channels/:channelHandle', onlyIn({ to: '2025-05' }), (_req, res) => res.end());
    router.post('/documents/:documentId/addDeliveryStatus', (_req, res) => res.end());
    const [channels, report] = routeMatchers(router);
    expect(channels).toMatchObject({ methods: { get: true }, versions: { to: '2025-05' } });
    expect(report).toMatchObject({ methods: { post: true } });
    expect(report!.versions).toBeUndefined();
    for (const path of [
      '/channels/web',
      '/channels/web/',
      '/CHANNELS/a%00b',
      '/channels/%E0%A4%A',
      '/channels/%FF',
    ])
      expect({ path, takes: channels!.matches(path) }).toEqual({ path, takes: true });
    for (const path of ['/channels', '/channels/', '/channels/a/b', '/documents/1/addDeliveryStatus'])
      expect({ path, takes: channels!.matches(path) }).toEqual({ path, takes: false });
    expect(report!.matches('/documents/%FF/addDeliveryStatus')).toBe(true);
  });
});
