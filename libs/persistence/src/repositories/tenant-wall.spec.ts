import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import * as ts from 'typescript';

/**
 * The second wall by construction (SECURITY.md "Isolation", CONTRACTS §21), two rules:
 * 1. A repository method that works for one organization (it takes a `Scope`, an `EndUserScope`, an owner, an
 *    `orgId`, or anything else that carries one) sends its statements only through the tenant wrappers: inside
 *    `withTenant(db, scope, (tx) => …)` on `tx`, or as `runPreparedAsTenant`.
 * 2. A public method of a repository class (or an exported function of a repository file) that sends a statement,
 *    itself or through a helper, takes such a scope, so rule 1 holds it: a method by id alone would run as the
 *    owner, across organizations, and only its caller's discipline would keep a request to its own rows.
 * A method that crosses organizations by design says so in a line comment directly above it,
 * `// crosses tenants: <why>`, and is left to run as the owner.
 *
 * Read from the sources (the TypeScript parser, no type checker): a parameter is scope-like by its name (`scope`,
 * `owner`, `orgId`), by its type's text (`Scope`, `EndUserScope`, `…Owner`, `orgId` in it), or by a type of the
 * same file with an `orgId` member. An entity passed whole (a `ThreadEntity`) is not taken for a scope.
 */

/** Methods of TypeORM's managers, repositories and query builders that send a statement (or lead to one). */
const QUERY_METHODS = new Set([
  'query',
  'find',
  'findOne',
  'findOneOrFail',
  'findOneBy',
  'findOneByOrFail',
  'findBy',
  'findAndCount',
  'findAndCountBy',
  'count',
  'countBy',
  'exist',
  'exists',
  'existsBy',
  'save',
  'insert',
  'update',
  'delete',
  'remove',
  'upsert',
  'softDelete',
  'restore',
  'increment',
  'decrement',
  'createQueryBuilder',
  'getRepository',
  'transaction',
  'execute',
  'getMany',
  'getOne',
  'getOneOrFail',
  'getCount',
  'getRawMany',
  'getRawOne',
  'getRawAndEntities',
  'getManyAndCount',
]);

/** Methods of a TypeORM repository that only build an entity in memory: `getRepository(E).create(…)` sends nothing. */
const ENTITY_BUILDERS = new Set(['create', 'merge']);

/** Runs a statement as the owner, across organizations. */
const OWNER_RUNNERS = new Set(['runPreparedAcrossTenants']);
/** Runs its statement under the wall by itself. */
const TENANT_STATEMENTS = new Set(['runPreparedAsTenant']);
/** `withTenant(db, scope, work)`: `work`'s transaction is the tenant's. */
const TENANT_WRAPPER = 'withTenant';
const MARKER = /^\/\/\s*crosses tenants:\s*\S/;
const SCOPE_NAMES = new Set(['scope', 'owner', 'orgId']);
const SCOPE_TYPE = /\b(Scope|EndUserScope|\w*Owner)\b|\borgId\b/;

export interface WallViolation {
  file: string;
  line: number;
  method: string;
  reason: string;
}

type FunctionLike = ts.MethodDeclaration | ts.FunctionDeclaration | ts.ArrowFunction | ts.FunctionExpression;

interface Checked {
  name: string;
  node: FunctionLike;
  className: string | null;
  isPrivate: boolean;
  /** A class's method that is neither private nor protected, or an exported function of the file. */
  isPublic: boolean;
}

const hasModifier = (node: ts.Node, kind: ts.SyntaxKind): boolean =>
  !!(ts.canHaveModifiers(node) && ts.getModifiers(node)?.some((modifier) => modifier.kind === kind));

/** The functions and methods of a file, with their names (top-level arrow functions by their variable's). */
function functionsOf(source: ts.SourceFile): Checked[] {
  const found: Checked[] = [];
  for (const statement of source.statements) {
    if (ts.isFunctionDeclaration(statement) && statement.body && statement.name) {
      const isPublic = hasModifier(statement, ts.SyntaxKind.ExportKeyword);
      found.push({ name: statement.name.text, node: statement, className: null, isPrivate: false, isPublic });
    } else if (ts.isVariableStatement(statement)) {
      for (const declaration of statement.declarationList.declarations) {
        const init = declaration.initializer;
        if (
          init &&
          (ts.isArrowFunction(init) || ts.isFunctionExpression(init)) &&
          ts.isIdentifier(declaration.name)
        ) {
          const isPublic = hasModifier(statement, ts.SyntaxKind.ExportKeyword);
          found.push({
            name: declaration.name.text,
            node: init,
            className: null,
            isPrivate: false,
            isPublic,
          });
        }
      }
    } else if (ts.isClassDeclaration(statement)) {
      const className = statement.name?.text ?? '(class)';
      for (const member of statement.members) {
        if (ts.isMethodDeclaration(member) && member.body && ts.isIdentifier(member.name)) {
          const isPrivate = hasModifier(member, ts.SyntaxKind.PrivateKeyword);
          const isPublic = !isPrivate && !hasModifier(member, ts.SyntaxKind.ProtectedKeyword);
          found.push({ name: member.name.text, node: member, className, isPrivate, isPublic });
        }
      }
    }
  }
  return found;
}

/** Names of the file's interfaces, classes and type aliases that have an `orgId` member. */
function typesWithOrg(source: ts.SourceFile): Set<string> {
  const names = new Set<string>();
  const hasOrg = (members: ts.NodeArray<ts.Node>) =>
    members.some((member) => {
      const name = (member as { name?: ts.Node }).name;
      if (name && ts.isIdentifier(name) && name.text === 'orgId') return true;
      // A constructor's parameter properties (`readonly orgId: string`).
      return (
        ts.isConstructorDeclaration(member) &&
        member.parameters.some((p) => ts.isIdentifier(p.name) && p.name.text === 'orgId')
      );
    });
  for (const statement of source.statements) {
    if (ts.isInterfaceDeclaration(statement) && hasOrg(statement.members)) names.add(statement.name.text);
    if (ts.isClassDeclaration(statement) && statement.name && hasOrg(statement.members)) {
      names.add(statement.name.text);
    }
    if (ts.isTypeAliasDeclaration(statement) && SCOPE_TYPE.test(statement.type.getText(source))) {
      names.add(statement.name.text);
    }
  }
  return names;
}

function isScopeLike(parameter: ts.ParameterDeclaration, source: ts.SourceFile, local: Set<string>): boolean {
  if (ts.isIdentifier(parameter.name) && SCOPE_NAMES.has(parameter.name.text)) return true;
  if (!parameter.type) return false;
  const text = parameter.type.getText(source);
  if (SCOPE_TYPE.test(text)) return true;
  return [...local].some((name) => new RegExp(`\\b${name}\\b`).test(text));
}

function hasMarker(node: ts.Node, source: ts.SourceFile): boolean {
  // A method's comments lead it; a top-level arrow function's lead its variable statement.
  let holder: ts.Node = node;
  if (ts.isArrowFunction(node) || ts.isFunctionExpression(node)) {
    while (holder.parent && !ts.isVariableStatement(holder) && !ts.isSourceFile(holder.parent)) {
      holder = holder.parent;
    }
  }
  const ranges = ts.getLeadingCommentRanges(source.text, holder.getFullStart()) ?? [];
  const last = ranges[ranges.length - 1];
  // The marker is the comment right above the declaration (after its doc comment, if any).
  return !!last && MARKER.test(source.text.slice(last.pos, last.end));
}

/** Identifiers anywhere under `node`. */
function mentions(node: ts.Node, names: ReadonlySet<string>): boolean {
  if (ts.isIdentifier(node) && names.has(node.text)) return true;
  return ts.forEachChild(node, (child) => (mentions(child, names) ? true : undefined)) ?? false;
}

/** Parameters and variables that hold a database handle: what a statement is sent on. */
const DB_TYPE = /\b(Db|DataSource|EntityManager|QueryRunner|Repository)\b/;
const DB_NAMES = new Set(['db', 'tx', 'manager', 'scoped']);

/** What a chain of calls and property reads (`tx.getRepository(E).find(…)`) starts from. */
function rootOf(expression: ts.Expression): ts.Expression {
  let at = expression;
  for (;;) {
    if (ts.isParenthesizedExpression(at) || ts.isAwaitExpression(at) || ts.isNonNullExpression(at)) {
      at = at.expression;
    } else if (ts.isAsExpression(at)) at = at.expression;
    else if (ts.isPropertyAccessExpression(at) || ts.isElementAccessExpression(at)) at = at.expression;
    else if (ts.isCallExpression(at)) at = at.expression;
    else return at;
  }
}

/** The first call of a method of the repository itself (`this.m(…)`) in a chain, if any. */
function methodCallIn(expression: ts.Expression): ts.CallExpression | null {
  let at = expression;
  for (;;) {
    if (ts.isCallExpression(at)) {
      const callee = at.expression;
      if (ts.isPropertyAccessExpression(callee) && callee.expression.kind === ts.SyntaxKind.ThisKeyword)
        return at;
      at = callee;
    } else if (
      ts.isParenthesizedExpression(at) ||
      ts.isAwaitExpression(at) ||
      ts.isNonNullExpression(at) ||
      ts.isAsExpression(at) ||
      ts.isPropertyAccessExpression(at) ||
      ts.isElementAccessExpression(at)
    ) {
      at = at.expression;
    } else return null;
  }
}

/** The declaration of `name` visible from `node` within `fn` (by name: the repositories do not shadow). */
function declarationOf(
  name: string,
  node: ts.Node,
  fn: ts.Node,
): ts.ParameterDeclaration | ts.VariableDeclaration | null {
  for (let at: ts.Node | undefined = node; at; at = at.parent) {
    if (ts.isFunctionLike(at)) {
      const parameter = at.parameters.find((p) => ts.isIdentifier(p.name) && p.name.text === name);
      if (parameter) return parameter;
    }
    if (ts.isBlock(at) || ts.isSourceFile(at)) {
      for (const statement of at.statements) {
        if (!ts.isVariableStatement(statement)) continue;
        const declaration = statement.declarationList.declarations.find(
          (d) => ts.isIdentifier(d.name) && d.name.text === name,
        );
        if (declaration) return declaration;
      }
    }
    if (at === fn) break;
  }
  return null;
}

/** Whether an expression is, or is derived from, a database handle. */
function isDbRooted(expression: ts.Expression, fn: ts.Node, depth = 0): boolean {
  // What another method of the repository answers holds a handle only when it was handed one (`this.visible(tx)`).
  const methodCall = methodCallIn(expression);
  if (methodCall) return methodCall.arguments.some((argument) => isDbRooted(argument, fn, depth + 1));
  const root = rootOf(expression);
  if (root.kind === ts.SyntaxKind.ThisKeyword) return true;
  if (!ts.isIdentifier(root) || depth > 5) return false;
  const declaration = declarationOf(root.text, root, fn);
  if (!declaration) return false;
  if (ts.isParameter(declaration)) {
    if (declaration.type) return DB_TYPE.test(declaration.type.getText());
    if (DB_NAMES.has(root.text)) return true;
    // An untyped callback parameter: the transaction of withTenant or of a `transaction(…)`.
    const callback = declaration.parent;
    const call = callback.parent;
    return (
      ts.isCallExpression(call) &&
      ((ts.isIdentifier(call.expression) && call.expression.text === TENANT_WRAPPER) ||
        (ts.isPropertyAccessExpression(call.expression) && call.expression.name.text === 'transaction'))
    );
  }
  return !!declaration.initializer && isDbRooted(declaration.initializer, fn, depth + 1);
}

/**
 * The tenant transactions around `node` (`tx` of `withTenant(db, scope, (tx) => …)`), with the variables made
 * from them (`const repository = tx.getRepository(E)`); null when `node` is in none.
 */
function tenantTransactionsAround(node: ts.Node, stopAt: ts.Node): Set<string> | null {
  const names = new Set<string>();
  const callbacks: ts.Node[] = [];
  for (let at: ts.Node = node; at !== stopAt && at.parent; at = at.parent) {
    const parent = at.parent;
    if (
      (ts.isArrowFunction(at) || ts.isFunctionExpression(at)) &&
      ts.isCallExpression(parent) &&
      ts.isIdentifier(parent.expression) &&
      parent.expression.text === TENANT_WRAPPER &&
      parent.arguments[2] === at
    ) {
      callbacks.push(at);
      const [tx] = at.parameters;
      if (tx && ts.isIdentifier(tx.name)) names.add(tx.name.text);
    }
  }
  if (callbacks.length === 0) return null;
  for (let grew = true; grew;) {
    grew = false;
    const visit = (child: ts.Node) => {
      if (
        ts.isVariableDeclaration(child) &&
        ts.isIdentifier(child.name) &&
        !names.has(child.name.text) &&
        child.initializer &&
        mentions(child.initializer, names)
      ) {
        names.add(child.name.text);
        grew = true;
      }
      ts.forEachChild(child, visit);
    };
    callbacks.forEach(visit);
  }
  return names;
}

/** What a call sends, if it sends a statement: how the wall must see it. */
type CallKind = 'tenant' | 'owner' | 'query' | 'checked' | null;

/** Whether `call` is followed by more of its chain (`call.next(…)`): the chain is judged at its end. */
const continuesChain = (call: ts.CallExpression): boolean =>
  ts.isPropertyAccessExpression(call.parent) && call.parent.expression === call;

/** Whether `call` leads only to an entity built in memory (`db.getRepository(E).create(…)`). */
const buildsOnly = (call: ts.CallExpression): boolean =>
  continuesChain(call) && ENTITY_BUILDERS.has((call.parent as ts.PropertyAccessExpression).name.text);

/**
 * The repositories' sources checked against the wall: every violation, by file and method. A call of a module
 * function (of any repository file) or a method that sends statements of its own counts as a query.
 */
export function wallViolations(files: { file: string; text: string }[]): WallViolation[] {
  const sources = files.map(({ file, text }) => ({
    file,
    source: ts.createSourceFile(file, text, ts.ScriptTarget.Latest, true),
  }));
  // First: which functions send statements (directly, or through another that does), across the files.
  const querying = new Set<string>();
  const allFunctions = sources.flatMap(({ source }) => functionsOf(source));
  const sends = (fn: Checked): boolean => {
    let found = false;
    const visit = (child: ts.Node) => {
      if (found) return;
      if (ts.isCallExpression(child)) {
        const callee = child.expression;
        if (ts.isIdentifier(callee)) {
          found =
            OWNER_RUNNERS.has(callee.text) || TENANT_STATEMENTS.has(callee.text) || querying.has(callee.text);
        } else if (ts.isPropertyAccessExpression(callee)) {
          found =
            callee.expression.kind === ts.SyntaxKind.ThisKeyword
              ? querying.has(callee.name.text)
              : QUERY_METHODS.has(callee.name.text) &&
                !buildsOnly(child) &&
                isDbRooted(callee.expression, fn.node);
        }
      }
      ts.forEachChild(child, visit);
    };
    if (fn.node.body) visit(fn.node.body);
    return found;
  };
  for (let changed = true; changed;) {
    changed = false;
    for (const fn of allFunctions) {
      if (!querying.has(fn.name) && sends(fn)) {
        querying.add(fn.name);
        changed = true;
      }
    }
  }

  const violations: WallViolation[] = [];
  for (const { file, source } of sources) {
    const local = typesWithOrg(source);
    const functions = functionsOf(source);
    const scoped = new Set(
      functions
        .filter((fn) => fn.node.parameters.some((p) => isScopeLike(p, source, local)))
        .map((fn) => `${fn.className}.${fn.name}`),
    );
    const kindOf = (call: ts.CallExpression, fn: Checked): CallKind => {
      const callee = call.expression;
      if (ts.isIdentifier(callee)) {
        if (TENANT_STATEMENTS.has(callee.text)) return 'tenant';
        if (OWNER_RUNNERS.has(callee.text)) return 'owner';
        // A scoped module function of this file is checked on its own.
        if (scoped.has(`null.${callee.text}`)) return 'checked';
        return querying.has(callee.text) ? 'query' : null;
      }
      if (!ts.isPropertyAccessExpression(callee)) return null;
      if (callee.expression.kind === ts.SyntaxKind.ThisKeyword) {
        // Another method of the repository: checked on its own when it is scoped, a query when it sends any.
        if (scoped.has(`${fn.className}.${callee.name.text}`)) return 'checked';
        return querying.has(callee.name.text) ? 'query' : null;
      }
      if (continuesChain(call)) return null;
      return QUERY_METHODS.has(callee.name.text) && isDbRooted(callee.expression, fn.node) ? 'query' : null;
    };
    // Private helpers whose every call is inside a tenant transaction, handed it: their statements are its.
    const calledOnlyInside = (fn: Checked): boolean => {
      const classNode = fn.node.parent;
      const calls: ts.CallExpression[] = [];
      const visit = (node: ts.Node) => {
        if (
          ts.isCallExpression(node) &&
          ts.isPropertyAccessExpression(node.expression) &&
          node.expression.expression.kind === ts.SyntaxKind.ThisKeyword &&
          node.expression.name.text === fn.name
        ) {
          calls.push(node);
        }
        ts.forEachChild(node, visit);
      };
      visit(classNode);
      return (
        calls.length > 0 &&
        calls.every((call) => {
          const names = tenantTransactionsAround(call, classNode);
          return !!names && call.arguments.some((argument) => mentions(argument, names));
        })
      );
    };

    for (const fn of functions) {
      if (!scoped.has(`${fn.className}.${fn.name}`)) continue;
      if (hasMarker(fn.node, source)) continue;
      if (fn.isPrivate && calledOnlyInside(fn)) continue;
      const method = fn.className ? `${fn.className}.${fn.name}` : fn.name;
      const report = (node: ts.Node, reason: string) =>
        violations.push({
          file,
          line: source.getLineAndCharacterOfPosition(node.getStart(source)).line + 1,
          method,
          reason,
        });
      const visit = (node: ts.Node) => {
        if (ts.isCallExpression(node)) {
          const kind = kindOf(node, fn);
          const callee = node.expression;
          const name = ts.isPropertyAccessExpression(callee) ? callee.name.text : callee.getText(source);
          if (kind === 'owner') report(node, `runs ${name} as the owner`);
          if (kind === 'query') {
            const names = tenantTransactionsAround(node, fn.node);
            if (!names) {
              report(node, `sends ${name}(…) outside withTenant`);
            } else {
              // On the tenant transaction: the chain it is sent on, or (a function, a method) what it is handed.
              const onChain =
                ts.isPropertyAccessExpression(callee) && callee.expression.kind !== ts.SyntaxKind.ThisKeyword;
              const onTenant = onChain
                ? mentions(callee.expression, names)
                : node.arguments.some((argument) => mentions(argument, names));
              if (!onTenant) report(node, `sends ${name}(…) inside withTenant but not on its transaction`);
            }
          }
        }
        ts.forEachChild(node, visit);
      };
      if (fn.node.body) visit(fn.node.body);
    }

    // The second rule: a public method that sends a statement takes a scope (the first rule then holds it), or says
    // why it crosses organizations. Its private helpers are what it makes of them.
    for (const fn of functions) {
      if (!fn.isPublic || scoped.has(`${fn.className}.${fn.name}`) || hasMarker(fn.node, source)) continue;
      if (!sends(fn)) continue;
      violations.push({
        file,
        line: source.getLineAndCharacterOfPosition(fn.node.getStart(source)).line + 1,
        method: fn.className ? `${fn.className}.${fn.name}` : fn.name,
        reason: 'sends statements but takes no scope (nor says `// crosses tenants: <why>`)',
      });
    }
  }
  return violations;
}

const REPOSITORIES = __dirname;

describe('the tenant wall in the repositories', () => {
  it('sends every statement of a public method under the wall of a scope it takes, or says why not', () => {
    const files = readdirSync(REPOSITORIES)
      .filter((name) => name.endsWith('.repository.ts'))
      .map((name) => ({ file: name, text: readFileSync(join(REPOSITORIES, name), 'utf8') }));
    expect(files.length).toBeGreaterThan(20);
    const found = wallViolations(files).map((v) => `${v.file}:${v.line} ${v.method}: ${v.reason}`);
    expect(found).toEqual([]);
  });

  const check = (text: string) => wallViolations([{ file: 'example.repository.ts', text }]);
  const header = `import { DataSource } from 'typeorm';
    import { Scope, Db } from './scope';
    interface Filter { orgId: string; day: string }`;

  it('fails on a scoped method that queries as the owner', () => {
    const found = check(`${header}
      export class ExampleRepository {
        constructor(private readonly db: DataSource) {}
        find(scope: Scope, id: string) {
          return this.db.query('SELECT 1 FROM t WHERE org_id = $1 AND id = $2', [scope.orgId, id]);
        }
        byOrg(orgId: string) { return this.db.getRepository(Thing).findBy({ orgId }); }
        filtered(filter: Filter) { return this.db.query('SELECT 1', [filter.orgId]); }
        ofTx(tx: Db, owner: { orgId: string; userId: string }) { return tx.query('SELECT 1', [owner.orgId]); }
      }`);
    expect(found.map((v) => v.method)).toEqual([
      'ExampleRepository.find',
      'ExampleRepository.byOrg',
      'ExampleRepository.filtered',
      'ExampleRepository.ofTx',
    ]);
  });

  it('fails on a statement inside withTenant that is not sent on its transaction', () => {
    const found = check(`${header}
      export class ExampleRepository {
        constructor(private readonly db: DataSource) {}
        find(scope: Scope, id: string) {
          return withTenant(this.db, scope, (tx) => this.db.query('SELECT 1', [id]));
        }
      }`);
    expect(found).toEqual([
      expect.objectContaining({ reason: expect.stringMatching(/not on its transaction/) }),
    ]);
  });

  it('fails on a scoped method that calls an unscoped querying helper outside the wall, or runs across tenants', () => {
    const found = check(`${header}
      async function count(db: Db, sql: string) { return db.query(sql); }
      export class ExampleRepository {
        constructor(private readonly db: DataSource) {}
        remove(db: Db, orgId: string) { return count(db, 'DELETE FROM t'); }
        hot(scope: Scope) { return runPreparedAcrossTenants(this.db, STATEMENT, [scope.orgId]); }
      }`);
    expect(found.map((v) => v.method)).toEqual(['ExampleRepository.remove', 'ExampleRepository.hot']);
  });

  it('fails on a public method that sends a statement and takes no scope, itself or through a private helper', () => {
    const found = check(`${header}
      export async function purge(db: Db) { return db.query('DELETE FROM t'); }
      export class ExampleRepository {
        constructor(private readonly db: DataSource) {}
        findById(id: string, db: Db = this.db.manager) { return db.getRepository(Thing).findOneBy({ id }); }
        byMessageId(id: string) { return this.one(id); }
        touch(tx: Db, id: string) { return tx.query('UPDATE t SET at = now() WHERE id = $1', [id]); }
        // crosses tenants: the worker holds the job by the row's id
        /** A marker above the doc comment is not the method's. */
        misplaced(id: string) { return this.db.query('SELECT 1 FROM t WHERE id = $1', [id]); }
        private one(id: string) { return this.db.query('SELECT 1 FROM t WHERE id = $1', [id]); }
      }`);
    expect(found.map((v) => v.method)).toEqual([
      'purge',
      'ExampleRepository.findById',
      'ExampleRepository.byMessageId',
      'ExampleRepository.touch',
      'ExampleRepository.misplaced',
    ]);
    expect(found.every((v) => /takes no scope/.test(v.reason))).toBe(true);
  });

  it('passes an unscoped public method that says why it crosses tenants, or that sends nothing', () => {
    const found = check(`${header}
      export const label = (name: string) => name.trim();
      export class ExampleRepository {
        constructor(private readonly db: DataSource) {}
        /** Any row by id. */
        // crosses tenants: the worker holds the job by the row's id, whichever organization's it is
        findById(id: string) { return this.db.getRepository(Thing).findOneBy({ id }); }
        named(name: string) { return label(name); }
        build(name: string) { return this.db.getRepository(Thing).create({ name }); }
        byId(scope: Scope, id: string) { return withTenant(this.db, scope, (tx) => this.one(tx, id)); }
        private one(tx: Db, id: string) { return tx.query('SELECT 1 FROM t WHERE id = $1', [id]); }
      }`);
    expect(found).toEqual([]);
  });

  it('passes wrapped statements, tenant statements, private helpers handed the tenant transaction and marked methods', () => {
    const found = check(`${header}
      async function count(db: Db, sql: string) { return db.query(sql); }
      export class ExampleRepository {
        constructor(private readonly db: DataSource) {}
        find(scope: Scope, id: string, db: Db = this.db.manager) {
          return withTenant(db, scope, (tx) => tx.getRepository(Thing).findOneBy({ id, orgId: scope.orgId }));
        }
        remove(db: Db, orgId: string) { return withTenant(db, { orgId }, (tx) => count(tx, 'DELETE FROM t')); }
        hot(scope: Scope) { return runPreparedAsTenant(this.db, scope, STATEMENT, [scope.orgId]); }
        list(scope: Scope) { return withTenant(this.db, scope, (tx) => this.page(tx, scope)); }
        private page(tx: Db, scope: Scope) { return tx.query('SELECT 1', [scope.orgId]); }
        /** Every organization's. */
        // crosses tenants: the daily sweep reads every organization's settings
        sweep(orgId: string) { return this.db.query('SELECT 1', [orgId]); }
      }`);
    expect(found).toEqual([]);
  });
});
