import { DataSource } from 'typeorm';
import { loadSettings } from '@app/config';
import { dataSourceOptions } from './data-source';

/** The data source of the TypeORM CLI (`npm run migration:generate`), from the same settings as the apps. */
export default new DataSource(dataSourceOptions(loadSettings(process.env)));
