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

function isRawShape(value) {
  if (value === null || typeof value !== 'object' || Array.isArray(value)) return false;
  const entries = Object.values(value);
  return entries.length > 0 && entries.every(isZod);
}

/** Returns the zod schema that `schema` is or stands for, or `undefined` for JSON Schema. */
function zodSchema(schema) {
  if (isZod(schema)) return schema;
  if (isRawShape(schema)) return loadZod().object(schema);
  if (schema !== null && typeof schema === 'object' && '_def' in schema) {
    throw new TypeError('mcpweft: zod 3 schemas are not supported; use zod 4 or a JSON Schema object');
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
