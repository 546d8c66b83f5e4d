'use strict';
// Schemas as JSON Schema: a JSON Schema object as it is, or a zod (v4) schema, or a raw
// shape of zod schemas as the TypeScript SDK takes them, through zod's own `toJSONSchema`.

let zod;

function loadZod() {
  if (zod === undefined) {
    try {
      zod = require('zod');
    } catch (error) {
      throw new Error('mcpweft: zod schemas need the zod package (npm install zod)', { cause: error });
    }
  }
  return zod;
}

function isZod(value) {
  return value !== null && typeof value === 'object' && '_zod' in value;
}

/** Whether `value` is a zod 3 schema (zod 3 and 4 both have `_def`; only zod 4 has `_zod`). */
function isZod3(value) {
  return value !== null && typeof value === 'object' && '_def' in value && !('_zod' in value);
}

function isRawShape(value) {
  if (value === null || typeof value !== 'object' || Array.isArray(value)) return false;
  const entries = Object.values(value);
  return entries.length > 0 && entries.every(isZod);
}

const ACCEPTED =
  'mcpweft takes a JSON Schema object, a zod 4 schema, or a raw shape of zod 4 schemas ' +
  "(zod@4, or `import { z } from 'zod/v4'` with zod 3.25 or later)";

/**
 * Returns the zod schema that `schema` is or stands for, or `undefined` for JSON Schema. Zod 3
 * schemas, alone or in a raw shape, are refused with a `TypeError` that says what is accepted:
 * zod 3 has no JSON Schema conversion of its own.
 */
function zodSchema(schema) {
  if (isZod(schema)) return schema;
  if (isRawShape(schema)) return loadZod().object(schema);
  if (isZod3(schema)) throw new TypeError(`mcpweft: a zod 3 schema is not supported; ${ACCEPTED}`);
  if (schema !== null && typeof schema === 'object' && !Array.isArray(schema)) {
    const zod3 = Object.keys(schema).filter((key) => isZod3(schema[key]));
    if (zod3.length > 0) {
      throw new TypeError(`mcpweft: the raw shape's ${zod3.join(', ')} ${zod3.length > 1 ? 'are zod 3 schemas' : 'is a zod 3 schema'}; ${ACCEPTED}`);
    }
    const zod4 = Object.keys(schema).filter((key) => isZod(schema[key]));
    if (zod4.length > 0) {
      const others = Object.keys(schema).filter((key) => !isZod(schema[key]));
      throw new TypeError(`mcpweft: a raw shape holds zod schemas only, but ${others.join(', ')} ${others.length > 1 ? 'are' : 'is'} not; ${ACCEPTED}`);
    }
  }
  return undefined;
}

/** Returns the JSON Schema of `schema` for `io` (`input` or `output`). */
function jsonSchema(schema, io = 'input') {
  if (schema === undefined) return undefined;
  const z = zodSchema(schema);
  if (z === undefined) return schema;
  const converted = loadZod().toJSONSchema(z, { io });
  delete converted.$schema;
  return converted;
}

module.exports = { zodSchema, jsonSchema };
