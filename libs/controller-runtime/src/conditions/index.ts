export {
  type ConditionsResult,
  type ConditionUpdate,
  findStatusCondition,
  isStatusConditionFalse,
  isStatusConditionPresentAndEqual,
  isStatusConditionTrue,
  removeStatusCondition,
  setStatusCondition,
  setStatusConditions,
} from './conditions.js';
